// Hand-check of the TypeScript oracle: compile an "old caller" snippet against both releases.
//
// usage: node run.cjs <typescript module dir> <pair's check dir (node_modules/{old,new}-pkg)> <snippet.ts>
// The snippet imports from "PKG"; it must compile against old-pkg. Every error against new-pkg
// is a break an old caller meets, to compare with the oracle's verdict in the comments.
"use strict";
const path = require("path");
const fs = require("fs");
const ts = require(path.resolve(process.argv[2]));
const [dir, snippet] = process.argv.slice(3);
const text = fs.readFileSync(snippet, "utf8");
for (const pkg of ["old-pkg", "new-pkg"]) {
  const file = path.join(path.resolve(dir), `handcheck_${pkg}.ts`);
  fs.writeFileSync(file, text.replace(/PKG/g, pkg));
  const program = ts.createProgram([file], {
    strict: true,
    noEmit: true,
    skipLibCheck: true,
    esModuleInterop: true,
    module: ts.ModuleKind.CommonJS,
    moduleResolution: ts.ModuleResolutionKind.Node10,
    target: ts.ScriptTarget.ES2022,
    types: [],
    lib: ["lib.es2022.d.ts", "lib.dom.d.ts"],
  });
  const errors = ts.getPreEmitDiagnostics(program).filter((d) => d.file && d.file.fileName === file);
  console.log(`${pkg}: ${errors.length ? "errors" : "compiles"}`);
  for (const d of errors) {
    const line = d.file.getLineAndCharacterOfPosition(d.start).line + 1;
    console.log(`  line ${line}: ${ts.flattenDiagnosticMessageText(d.messageText, " ").slice(0, 200)}`);
  }
  fs.unlinkSync(file);
}
