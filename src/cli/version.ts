/**
 * Opal's version, shown by every command's `--version` and help. Equals package.json's version
 * (test/unit/cli/execFlags.test.ts checks). A module of its own so that a command can name it
 * without loading another command's flag table (opal-evm starts for every fixture run).
 */
export const OPAL_VERSION = "0.1.0";
