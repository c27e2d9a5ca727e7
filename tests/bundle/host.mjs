// How a bundle-aware client starts an unpacked MCP Bundle: the manifest and
// the user's configuration through getMcpConfigForManifest, the function of
// @anthropic-ai/mcpb that Claude Desktop loads bundles with (substitution of
// ${__dirname} and ${user_config.*}, defaults, platform overrides, required
// settings). Prints {command, args, env} as JSON, or exits 1 when the host
// would not start the server (a required setting missing).
//
//   node tests/bundle/host.mjs MCPB_PACKAGE_DIR BUNDLE_DIR 'USER_CONFIG_JSON'
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { pathToFileURL } from "node:url";

const [packageDir, bundleDir, userConfig] = process.argv.slice(2);
const mcpb = await import(pathToFileURL(join(packageDir, "dist", "index.js")).href);
const manifest = JSON.parse(readFileSync(join(bundleDir, "manifest.json"), "utf8"));
const config = await mcpb.getMcpConfigForManifest({
  manifest,
  extensionPath: bundleDir,
  systemDirs: {},
  userConfig: JSON.parse(userConfig),
  pathSeparator: "/",
});
if (!config) {
  console.error("the host would not start this bundle: a required setting is missing");
  process.exit(1);
}
console.log(JSON.stringify({ command: config.command, args: config.args ?? [], env: config.env ?? {} }));
