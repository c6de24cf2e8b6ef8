// Downloads, once, what tests/history.rs's local npm registry serves: for every package of
// package-lock.json, its packument cut down to the versions the lock holds, and those
// versions' tarballs. Usage: node fetch-registry.mjs OUT_DIR [REGISTRY_URL]
import { readFileSync, writeFileSync, mkdirSync, existsSync } from "node:fs";
import { join, dirname } from "node:path";
import { fileURLToPath } from "node:url";

const here = dirname(fileURLToPath(import.meta.url));
const out = process.argv[2];
const registry = (process.argv[3] || "https://registry.npmjs.org/").replace(/\/?$/, "/");
const lock = JSON.parse(readFileSync(join(here, "package-lock.json"), "utf8"));
const wanted = new Map();
for (const [path, p] of Object.entries(lock.packages)) {
  if (!path) continue;
  const name = p.name || path.slice(path.lastIndexOf("node_modules/") + "node_modules/".length);
  if (!wanted.has(name)) wanted.set(name, new Set());
  wanted.get(name).add(p.version);
}
mkdirSync(join(out, "packuments"), { recursive: true });
async function one(name, versions) {
  const file = join(out, "packuments", encodeURIComponent(name) + ".json");
  if (existsSync(file)) return;
  const res = await fetch(registry + name.replace("/", "%2f"));
  if (!res.ok) throw new Error(`${name}: ${res.status}`);
  const doc = await res.json();
  const kept = { name, "dist-tags": {}, versions: {}, time: {} };
  for (const v of versions) {
    const m = doc.versions[v];
    if (!m) throw new Error(`${name}@${v}: not in the registry`);
    const tarball = m.dist.tarball;
    const rel = tarball.slice(tarball.indexOf(name + "/-/"));
    const dest = join(out, "tarballs", rel);
    mkdirSync(dirname(dest), { recursive: true });
    const t = await fetch(tarball);
    if (!t.ok) throw new Error(`${tarball}: ${t.status}`);
    writeFileSync(dest, Buffer.from(await t.arrayBuffer()));
    m.dist = { ...m.dist, tarball: "TARBALLS/" + rel };
    kept.versions[v] = m;
    if (doc.time && doc.time[v]) kept.time[v] = doc.time[v];
  }
  kept["dist-tags"].latest = [...versions].sort().pop();
  writeFileSync(file, JSON.stringify(kept));
}
const names = [...wanted.entries()];
for (let i = 0; i < names.length; i += 16) {
  await Promise.all(names.slice(i, i + 16).map(([n, v]) => one(n, v)));
}
console.log(`${names.length} packages in ${out}`);
