// Prints the o200k_base token count of each file named on the command line, one per line,
// as tiktoken (npm, which bundles the encoding) counts it: the text read as UTF-8, special
// tokens' spellings as ordinary text.
"use strict";
const fs = require("fs");
const { get_encoding } = require("tiktoken");

const enc = get_encoding("o200k_base");
for (const file of process.argv.slice(2)) {
  const text = fs.readFileSync(file, "utf8");
  console.log(enc.encode(text, [], []).length);
}
enc.free();
