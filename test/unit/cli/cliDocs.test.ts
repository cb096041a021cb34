/**
 * docs/cli.md is generated from the flag tables (src/cli/cliDocs.ts, `npm run docs:cli`): it must be
 * what they give now, and it must name every command and every option of every binary with its
 * environment variable, as `--help` does.
 */
import { strict as assert } from "node:assert";
import { readFileSync } from "node:fs";
import { CLI_DOCS_FILE, cliDocsUpToDate } from "../../../scripts/genCliDocs.js";
import { CLI_DOCS, renderCliDocs } from "../../../src/cli/cliDocs.js";
import { dashed, envNameOf } from "../../../src/cli/flagTable.js";

describe("cli/cliDocs: docs/cli.md", () => {
  it("is what scripts/genCliDocs.ts generates from the flag tables", () => {
    assert.ok(cliDocsUpToDate(), "docs/cli.md is out of date: run npm run docs:cli");
    assert.equal(readFileSync(CLI_DOCS_FILE, "utf8"), renderCliDocs());
  });

  it("names every binary, command and option with its env var", () => {
    const md = renderCliDocs();
    const rows = (name: string): string[] => md.split("\n").filter((l) => l.startsWith(`| \`${dashed(name)}\` |`));
    let options = 0;
    for (const { spec, subcommands } of CLI_DOCS) {
      assert.ok(md.includes(`\n## ${spec.name}\n`), spec.name);
      for (const s of [spec, ...(subcommands ?? [])]) {
        if (s !== spec) assert.ok(md.includes(`\n### ${s.name}\n`), s.name);
        for (const [name, f] of Object.entries(s.flags)) {
          const env = envNameOf(s.envPrefix, name, f);
          assert.ok(
            rows(name).some((r) => r.includes(env === undefined ? "| — |" : `| \`${env}\` |`)),
            `${s.name} --${name}`,
          );
          options++;
        }
        for (const [cmd, c] of Object.entries(s.commands ?? {})) {
          assert.ok(md.includes(`\n### ${s.name} ${cmd}\n`), `${s.name} ${cmd}`);
          for (const [name, f] of Object.entries(c.flags ?? {})) {
            const env = envNameOf(s.envPrefix, name, f, cmd);
            assert.ok(
              rows(name).some((r) => r.includes(`| \`${env}\` |`)),
              `${s.name} ${cmd} --${name}`,
            );
            options++;
          }
        }
      }
    }
    assert.ok(options > 200, `options documented: ${options}`);
    for (const bin of ["opal-exec", "opal-node", "opal-batcher", "opal-devnet", "opal-evm"]) {
      assert.ok(
        CLI_DOCS.some((d) => d.spec.name === bin),
        bin,
      );
    }
  });

  it("keeps table cells whole and markup out of text", () => {
    const md = renderCliDocs();
    for (const line of md.split("\n").filter((l) => l.startsWith("| `--"))) {
      // Option, Type, Default, Environment, Description: an unescaped | would split a cell.
      assert.equal(line.replace(/\\\|/g, "").split("|").length, 7, line);
    }
    assert.match(md, /`--activate` \| list, repeatable \|/);
    assert.ok(!/<fork>/.test(md), "angle brackets outside code are escaped");
  });
});
