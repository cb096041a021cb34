/**
 * docs/cli.md, rendered from the flag tables (code-models §9.5: the reference is generated, so it
 * cannot drift from the parser): every command of every binary, every option with its type,
 * default and environment variable. `npm run docs:cli` (scripts/genCliDocs.ts) writes the file;
 * test/unit/cli/cliDocs.test.ts fails when it is stale.
 */
import { BATCH_DECODE_CLI } from "./batchDecode.js";
import { BATCHER_CLI } from "./batcherFlags.js";
import { DEVNET_CLI } from "./devnetFlags.js";
import { EVM_CLI } from "./evmTool/flags.js";
import { EXEC_CLI } from "./execFlags.js";
import { type CliSpec, dashed, defaultText, envNameOf, type FlagSpec, type FlagTable, usageLine } from "./flagTable.js";
import { NETWORKS_CLI } from "./networks.js";
import { NODE_CLI } from "./nodeFlags.js";

/** A binary, and the commands that are separate tables of their own (opal-node's `networks`). */
export interface CliDoc {
  readonly spec: CliSpec;
  readonly subcommands?: readonly CliSpec[];
}

/** Every binary, in the order the reference lists them. */
export const CLI_DOCS: readonly CliDoc[] = [
  { spec: EXEC_CLI },
  { spec: NODE_CLI, subcommands: [NETWORKS_CLI, BATCH_DECODE_CLI] },
  { spec: BATCHER_CLI },
  { spec: DEVNET_CLI },
  { spec: EVM_CLI },
];

/** Enums with more values than this show their `expects` text (or a count) instead of the list. */
const MAX_LISTED_VALUES = 16;

/**
 * Markdown text outside code: `|` cannot end a table cell, `<…>` is not HTML, `*` is not emphasis;
 * code spans are kept as they are.
 */
function md(text: string): string {
  return text
    .split("`")
    .map((part, i) =>
      i % 2 === 1
        ? part
        : part
            .replace(/[|*]/g, (c) => `\\${c}`)
            .replace(/</g, "&lt;")
            .replace(/>/g, "&gt;"),
    )
    .join("`");
}

function code(text: string): string {
  return text.includes("`") ? `\`\` ${text} \`\`` : `\`${text}\``;
}

/** GitHub's heading anchor. */
function anchor(heading: string): string {
  return heading
    .toLowerCase()
    .replace(/[^a-z0-9 -]/g, "")
    .replace(/ /g, "-");
}

function range(min: number | bigint | undefined, max: number | bigint | undefined): string {
  if (min !== undefined && max !== undefined) return ` ${min}…${max}`;
  if (min !== undefined) return ` ≥ ${min}`;
  if (max !== undefined) return ` ≤ ${max}`;
  return "";
}

/** The Type cell: the value kind, with bounds. */
function typeCell(spec: FlagSpec): string {
  switch (spec.type) {
    case "int":
    case "bigint":
    case "float": {
      const max = spec.type === "bigint" && spec.max !== undefined && spec.max > 1n << 64n ? undefined : spec.max;
      return `${spec.type}${range(spec.min, max)}`;
    }
    case "list":
      return spec.repeatable ? "list, repeatable" : "list";
    default:
      return spec.type;
  }
}

/** The Description cell: the help sentence, then what the value must be and the flag's notes. */
function descriptionCell(spec: FlagSpec): string {
  const help = spec.help.trim();
  const parts = [md(/[.!?]$/.test(help) ? help : `${help}.`)];
  if (spec.type === "enum") {
    parts.push(
      spec.values.length <= MAX_LISTED_VALUES
        ? `One of ${spec.values.map(code).join(", ")}.`
        : spec.expects !== undefined
          ? `Takes ${md(spec.expects)}.`
          : `One of ${spec.values.length} names.`,
    );
  } else if (spec.expects !== undefined) {
    parts.push(`Takes ${md(spec.expects)}.`);
  }
  if (spec.aliases !== undefined) parts.push(`Also ${spec.aliases.map((a) => code(dashed(a))).join(", ")}.`);
  if (spec.envOnly) parts.push("Only from the environment.");
  if (spec.hidden) parts.push("Not listed by `--help`.");
  if (spec.deprecated !== undefined) parts.push(`Deprecated: ${md(spec.deprecated)}.`);
  return parts.join(" ");
}

/** One table per help category, in table order (as `--help` groups them). */
function optionTables(table: FlagTable, envOf: (name: string, spec: FlagSpec) => string | undefined): string[] {
  const byCategory = new Map<string, string[]>();
  for (const [name, spec] of Object.entries(table)) {
    const env = envOf(name, spec);
    const def = defaultText(spec);
    const row = [
      spec.envOnly ? "—" : code(dashed(name)),
      typeCell(spec),
      spec.required ? "required" : def === "" ? "—" : code(def),
      env === undefined ? "—" : code(env),
      descriptionCell(spec),
    ];
    const cat = spec.category ?? "";
    let rows = byCategory.get(cat);
    if (rows === undefined) byCategory.set(cat, (rows = []));
    rows.push(`| ${row.join(" | ")} |`);
  }
  const out: string[] = [];
  for (const [cat, rows] of byCategory) {
    const head = "| Option | Type | Default | Environment | Description |\n| --- | --- | --- | --- | --- |";
    out.push(`${cat === "" ? "" : `**${md(cat)}**\n\n`}${head}\n${rows.join("\n")}\n`);
  }
  return out;
}

/** A description's lines: indented ones become a list, the others paragraphs. */
function descriptionBlock(text: string): string {
  const out: string[] = [];
  let list: string[] = [];
  const flush = (): void => {
    if (list.length > 0) out.push(list.join("\n"));
    list = [];
  };
  for (const line of text.split("\n")) {
    if (line.trim() === "") flush();
    else if (line.startsWith(" ")) list.push(`- ${md(line.trim())}`);
    else {
      flush();
      out.push(md(line));
    }
  }
  flush();
  return out.map((p) => `${p}\n`).join("\n");
}

function usageBlock(line: string): string {
  return `\`\`\`\n${line}\n\`\`\`\n`;
}

/** The sections of one binary: usage, its options, then each command. */
function renderCli(doc: CliDoc): string {
  const { spec } = doc;
  const out: string[] = [`## ${spec.name}\n`, `${md(spec.usage[0]!.toUpperCase() + spec.usage.slice(1))}.\n`];
  out.push(usageBlock(usageLine(spec)));
  if (spec.description !== undefined) out.push(descriptionBlock(spec.description));
  const commands = Object.entries(spec.commands ?? {});
  const subs = doc.subcommands ?? [];
  if (commands.length > 0 || subs.length > 0) {
    const rows = [
      ...commands.map(([n, c]) => `| [${code(n)}](#${anchor(`${spec.name} ${n}`)}) | ${md(c.help)} |`),
      ...subs.map((s) => {
        const n = s.name.slice(spec.name.length + 1);
        return `| [${code(n)}](#${anchor(s.name)}) | ${md(s.usage)} |`;
      }),
    ];
    out.push(`Commands:\n\n| Command | Description |\n| --- | --- |\n${rows.join("\n")}\n`);
  }
  const global = optionTables(spec.flags, (n, f) => envNameOf(spec.envPrefix, n, f));
  if (global.length > 0) {
    out.push(`### ${commands.length > 0 ? "Global options" : "Options"}\n`);
    out.push(...global);
  }
  for (const [name, c] of commands) {
    out.push(`### ${spec.name} ${name}\n`, `${md(c.help)}.\n`, usageBlock(usageLine(spec, name)));
    if (c.description !== undefined) out.push(descriptionBlock(c.description));
    out.push(...optionTables(c.flags ?? {}, (n, f) => envNameOf(spec.envPrefix, n, f, name)));
  }
  for (const s of subs) {
    out.push(`### ${s.name}\n`, `${md(s.usage[0]!.toUpperCase() + s.usage.slice(1))}.\n`, usageBlock(usageLine(s)));
    if (s.description !== undefined) out.push(descriptionBlock(s.description));
    out.push(...optionTables(s.flags, (n, f) => envNameOf(s.envPrefix, n, f)));
  }
  return out.join("\n");
}

/** docs/cli.md. */
export function renderCliDocs(docs: readonly CliDoc[] = CLI_DOCS): string {
  const toc = docs
    .map((d) => {
      const cmds = [
        ...Object.keys(d.spec.commands ?? {}).map((n) => `${d.spec.name} ${n}`),
        ...(d.subcommands ?? []).map((s) => s.name),
      ];
      const sub = cmds.map((c) => `  - [${c}](#${anchor(c)})`).join("\n");
      return `- [${d.spec.name}](#${anchor(d.spec.name)}): ${md(d.spec.usage)}${sub === "" ? "" : `\n${sub}`}`;
    })
    .join("\n");
  return [
    "# Command-line reference",
    "",
    "<!-- GENERATED FILE: do not edit. `npm run docs:cli` writes it from the flag tables in src/cli/",
    "     (src/cli/cliDocs.ts); test/unit/cli/cliDocs.test.ts fails when it is stale. -->",
    "",
    "Every command of Opal's binaries and every option, as the flag tables in `src/cli/` declare them",
    "(`--help` prints the same). An option is written `--name value`, `--name=value` or `-name value`;",
    "a bool as `--name` or `--name=false`. Each option with an environment variable can be set through",
    "it: a flag on the command line wins over the variable, the variable over the default. Lists are",
    "comma-separated; durations are Go durations.",
    "",
    toc,
    "",
    docs.map(renderCli).join("\n"),
  ].join("\n");
}
