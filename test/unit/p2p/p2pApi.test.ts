/**
 * The opp2p_* methods' address forms, without a host: CIDRs canonical as Go's net.ParseCIDR gives
 * them and net.IPNet's JSON ({IP, Mask}). The methods over running hosts:
 * test/integration/p2p/p2pApi.test.ts.
 */
import "../../../src/p2p/polyfill.js";
import assert from "node:assert/strict";
import { canonicalCidr, ipNetJson } from "../../../src/p2p/p2pApi.js";

describe("p2p/p2pApi: Go's net.IPNet forms", () => {
  it("canonical CIDRs and {IP, Mask} match net.ParseCIDR's results", () => {
    assert.equal(canonicalCidr("192.168.77.1/20"), "192.168.64.0/20");
    assert.equal(canonicalCidr("2001:db8:abcd:12::1/48"), "2001:db8:abcd::/48");
    assert.equal(canonicalCidr("1.2.3.4"), null);
    assert.deepEqual(ipNetJson("192.168.64.0/20"), { IP: "192.168.64.0", Mask: "///wAA==" });
    assert.deepEqual(ipNetJson("fe80::/10"), { IP: "fe80::", Mask: "/8AAAAAAAAAAAAAAAAAAAA==" });
  });
});
