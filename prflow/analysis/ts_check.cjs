// Does old code still compile against the new release? The TypeScript compiler decides, per export.
//
// Run by prflow (prflow/analysis/ts_compiler.py) with the repository's own `typescript`:
//   node ts_check.cjs < request.json > verdicts.json
// request: {typescript, old_root, new_root, entries: {label: [old entry file, new entry file]},
//           names: ["name" for the main entry (label ""), "label:name" for the others],
//           recheck_seconds: after this long, failing names are explained from the first program}
// answer:  {verdicts: {name: null | "why it breaks"}, seconds} or {error}
//
// One program holds both releases. For each name an "old usage" line is type-checked:
//   functions, variables, enums: the new value must be assignable to the old one's type (a
//     generic function with one signature is taken at its type parameters' global constraints,
//     as a concrete old call would instantiate it), and every old call or construct signature
//     needs a new one taking as many arguments (assignability alone allows fewer);
//   classes: the old public members (instance and static) keep assignable types, the old
//     constructor arguments and each method's old argument list are still accepted;
//   interfaces and type aliases: assignable both ways (callers write and read them).
// Private, protected and #private class members are removed from both releases first (they make
// the compiler compare two copies of a class by declaration), and members documented as internal
// are removed from the old one. When the compiler's explanation reaches the old and the new copy
// of another exported declaration, the break belongs to that declaration, not to this name.
"use strict";
const path = require("path");

function main(request) {
  const started = Date.now();
  const ts = require(path.resolve(request.typescript));
  const roots = [request.old_root, request.new_root].map((root) => path.resolve(root) + path.sep);
  const labels = Object.keys(request.entries).sort();
  const options = {
    strict: true,
    noEmit: true,
    skipLibCheck: true,
    esModuleInterop: true,
    allowSyntheticDefaultImports: true,
    allowJs: false,
    module: ts.ModuleKind.CommonJS,
    moduleResolution: ts.ModuleResolutionKind.Node10,
    target: ts.ScriptTarget.ES2022,
    types: [],
    lib: ["lib.es2022.d.ts", "lib.dom.d.ts"],
    noErrorTruncation: true,
  };
  // An entry is imported by its JavaScript name: `index` for index.d.ts, `index.mjs` for
  // index.d.mts (an `exports` map's `import` types), `index.cjs` for index.d.cts; node10
  // resolution maps each back to its declaration file.
  const specifier = (file) =>
    JSON.stringify(
      path
        .resolve(file)
        .replace(/(\.d)?\.(mts|mjs)$/, ".mjs")
        .replace(/(\.d)?\.(cts|cjs)$/, ".cjs")
        .replace(/(\.d)?\.(ts|tsx|js)$/, ""),
    );
  const header =
    labels
      .map((label, i) => {
        const [oldEntry, newEntry] = request.entries[label];
        return `import * as O${i} from ${specifier(oldEntry)};\nimport * as N${i} from ${specifier(newEntry)};`;
      })
      .join("\n") + "\n";
  const headerLines = header.split("\n").length - 1;
  const probe = path.join(path.resolve(request.new_root), "__prflow_probe__.ts");

  const INTERNAL_DOC = /@internal\b|\binternal (use|implementation)/i;
  const hidden = (member, oldRelease) => {
    if (member.name && ts.isPrivateIdentifier(member.name)) return true;
    if (ts.getCombinedModifierFlags(member) & (ts.ModifierFlags.Private | ts.ModifierFlags.Protected)) return true;
    return oldRelease && ts.getJSDocCommentsAndTags(member).some((doc) => INTERNAL_DOC.test(doc.getFullText()));
  };
  const publicOnly = (oldRelease) => (context) => {
    const visit = (node) => {
      if (ts.isClassDeclaration(node)) {
        const members = node.members.filter((m) => ts.isConstructorDeclaration(m) || !hidden(m, oldRelease));
        node = ts.factory.updateClassDeclaration(node, node.modifiers, node.name, node.typeParameters, node.heritageClauses, members);
      }
      return ts.visitEachChild(node, visit, context);
    };
    return (file) => ts.visitNode(file, visit);
  };
  const printer = ts.createPrinter();

  let previous;
  function compile(probeText) {
    const host = ts.createCompilerHost(options, true);
    const read = host.readFile.bind(host);
    const exists = host.fileExists.bind(host);
    const getSourceFile = host.getSourceFile.bind(host);
    host.readFile = (file) => (path.resolve(file) === probe ? probeText : read(file));
    host.fileExists = (file) => path.resolve(file) === probe || exists(file);
    host.getSourceFile = (file, language, onError, fresh) => {
      if (path.resolve(file) === probe) return ts.createSourceFile(file, probeText, language, true);
      const known = previous && previous.getSourceFile(file);
      if (known) return known;
      const source = getSourceFile(file, language, onError, fresh);
      const owner = roots.findIndex((root) => path.resolve(file).startsWith(root));
      if (!source || owner < 0 || !source.text.includes("class ")) return source;
      const result = ts.transform(source, [publicOnly(owner === 0)]);
      const text = printer.printFile(result.transformed[0]);
      result.dispose();
      return ts.createSourceFile(file, text, language, true);
    };
    previous = ts.createProgram([probe], options, host, previous);
    return previous;
  }

  const first = compile(header);
  const checker = first.getTypeChecker();
  const imports = first.getSourceFile(probe).statements;
  const exportsOf = (statement) => {
    const moduleSymbol = checker.getSymbolAtLocation(statement.moduleSpecifier);
    const found = new Map();
    for (const sym of moduleSymbol ? checker.getExportsOfModule(moduleSymbol) : []) {
      found.set(sym.escapedName.toString(), sym.flags & ts.SymbolFlags.Alias ? checker.getAliasedSymbol(sym) : sym);
    }
    return found;
  };
  const olds = labels.map((_, i) => exportsOf(imports[2 * i]));
  const news = labels.map((_, i) => exportsOf(imports[2 * i + 1]));
  const typeNames = new Set();
  for (const exported of olds) {
    for (const [name, sym] of exported) if (sym.flags & (ts.SymbolFlags.Type | ts.SymbolFlags.Class)) typeNames.add(name);
  }
  const globals = new Set(checker.getSymbolsInScope(first.getSourceFile(probe), ts.SymbolFlags.Type).map((s) => s.name));
  const KEYWORDS = new Set(["string", "number", "boolean", "object", "unknown", "any", "symbol", "bigint", "readonly", "keyof", "undefined", "null", "never", "void"]);

  const typeArguments = (sym) => {
    const declaration = (sym.declarations || []).find((d) => d.typeParameters);
    return declaration ? "<" + declaration.typeParameters.map(() => "any").join(", ") + ">" : "";
  };
  const atConstraints = (sym) => {
    const declarations = (sym.declarations || []).filter((d) => ts.isFunctionLike(d));
    if (declarations.length !== 1 || !declarations[0].typeParameters) return "";
    const args = declarations[0].typeParameters.map((parameter) => {
      const text = parameter.constraint ? parameter.constraint.getText() : "unknown";
      const words = text.match(/[A-Za-z_$][\w$]*/g) || [];
      return words.every((w) => KEYWORDS.has(w) || globals.has(w)) && !/["'`]/.test(text) ? text : "any";
    });
    return `<${args.join(", ")}>`;
  };
  const arity = (signature) => {
    const declaration = signature.getDeclaration();
    const rest = Boolean(declaration && (declaration.parameters || []).some((p) => p.dotDotDotToken));
    return rest ? Infinity : signature.getParameters().length;
  };
  const lostArity = (oldType, newType) => {
    for (const kind of [ts.SignatureKind.Call, ts.SignatureKind.Construct]) {
      const before = checker.getSignaturesOfType(oldType, kind).map(arity);
      const after = checker.getSignaturesOfType(newType, kind).map(arity);
      if (!before.length || !after.length) continue;
      const widest = Math.max(...after);
      const lost = before.find((count) => count > widest);
      if (lost !== undefined) return `no ${kind === ts.SignatureKind.Call ? "signature" : "constructor"} takes ${lost} arguments any more`;
    }
    return null;
  };
  const memberArity = (oldSym, newSym) => {
    const lost = lostArity(checker.getTypeOfSymbol(oldSym), checker.getTypeOfSymbol(newSym));
    if (lost || !(oldSym.flags & ts.SymbolFlags.Class)) return lost;
    const newInstance = checker.getDeclaredTypeOfSymbol(newSym);
    for (const prop of checker.getPropertiesOfType(checker.getDeclaredTypeOfSymbol(oldSym))) {
      const counterpart = checker.getPropertyOfType(newInstance, prop.escapedName.toString());
      const loss = counterpart && lostArity(checker.getTypeOfSymbol(prop), checker.getTypeOfSymbol(counterpart));
      if (loss) return `${prop.escapedName}: ${loss}`;
    }
    return null;
  };
  const usageLines = (o, n, name, sym, newSym) => {
    const old = `${o}.${name}${typeArguments(sym)}`;
    const now = `${n}.${name}${typeArguments(newSym)}`;
    if (sym.flags & ts.SymbolFlags.Class) {
      const statics = `Exclude<keyof typeof ${o}.${name}, "prototype">`;
      const lines = [
        `{ let n!: Pick<${now}, keyof ${old}>; let o: Pick<${old}, keyof ${old}> = n; }`,
        `{ let n!: Pick<typeof ${n}.${name}, ${statics}>; let o: Pick<typeof ${o}.${name}, ${statics}> = n; }`,
        `{ let n!: typeof ${n}.${name}; let o: abstract new (...args: ConstructorParameters<typeof ${o}.${name}>) => unknown = n; }`,
      ];
      for (const prop of checker.getPropertiesOfType(checker.getDeclaredTypeOfSymbol(sym))) {
        const method = prop.escapedName.toString();
        if (prop.flags & ts.SymbolFlags.Method && /^[A-Za-z_$][\w$]*$/.test(method)) {
          lines.push(`{ let a!: Parameters<${old}["${method}"]>; let b: Parameters<${now}["${method}"]> = a; }`);
        }
      }
      return lines;
    }
    if (sym.flags & (ts.SymbolFlags.Function | ts.SymbolFlags.Variable | ts.SymbolFlags.Enum)) {
      const instantiated = sym.flags & ts.SymbolFlags.Function ? atConstraints(sym) : "";
      return [`{ let n!: typeof ${n}.${name}; let o: typeof ${o}.${name}${instantiated} = n; }`];
    }
    if (sym.flags & (ts.SymbolFlags.Interface | ts.SymbolFlags.TypeAlias)) {
      return [`{ let n!: ${now}; let o: ${old} = n; }`, `{ let o!: ${old}; let n: ${now} = o; }`];
    }
    return [];
  };

  const verdicts = {};
  const lines = [];
  const owners = [];
  for (const requested of request.names) {
    const cut = requested.indexOf(":");
    const label = cut < 0 ? "" : requested.slice(0, cut);
    const name = cut < 0 ? requested : requested.slice(cut + 1);
    const index = labels.indexOf(label);
    const sym = index < 0 ? undefined : olds[index].get(name);
    const newSym = index < 0 ? undefined : news[index].get(name);
    if (!sym || !newSym || !/^[A-Za-z_$][\w$]*$/.test(name)) continue;
    verdicts[requested] = memberArity(sym, newSym);
    for (const line of usageLines(`O${index}`, `N${index}`, name, sym, newSym)) {
      lines.push(line);
      owners.push(requested);
    }
  }

  const unqualified = (text) =>
    text.replace(/import\("[^"]*"\)\./g, "").replace(/\b(?:[A-Za-z_$][\w$]*\.)+(?=[A-Za-z_$])/g, "");
  const PAIR = /'([^']*)'(?: is not assignable to type | and )'([^']*)'/;
  const chain = (messageText) => {
    const levels = [];
    for (let level = typeof messageText === "string" ? { messageText } : messageText; level; level = level.next && level.next[0]) {
      levels.push(unqualified(level.messageText));
    }
    return levels;
  };
  const belongsElsewhere = (levels, isType) =>
    levels.some((text, depth) => {
      const match = (depth > 0 || !isType) && PAIR.exec(text);
      return Boolean(match && match[1] === match[2] && (match[1].match(/[A-Za-z_$][\w$]*/g) || []).some((w) => typeNames.has(w)));
    });

  const failing = (programLines, programOwners) => {
    const program = compile(header + programLines.join("\n") + "\n");
    const probeFile = program.getSourceFile(probe);
    const found = new Map();
    for (const diagnostic of program.getSemanticDiagnostics(probeFile)) {
      if (diagnostic.start === undefined) continue;
      const owner = programOwners[probeFile.getLineAndCharacterOfPosition(diagnostic.start).line - headerLines];
      if (owner !== undefined) found.set(owner, [...(found.get(owner) || []), diagnostic]);
    }
    return found;
  };
  // One program finds the names that fail; each of those is checked again in a program of its
  // own, so how the compiler explains it (and so where the break belongs) does not depend on
  // which other names were checked before it.
  // Each recheck type-checks the package again: past the request's budget (a package with
  // hundreds of broken generic overloads), the remaining names keep the first program's
  // explanation, so the compiler still answers within its time limit.
  // Rechecked first: the names whose first explanation gives the break away to another
  // declaration. Past the budget they would be judged unbroken on an explanation that depends
  // on what the first program checked before them (effector 23's generic overload set `guard`);
  // a name the first program already explains as its own break stays broken either way.
  const combined = failing(lines, owners);
  const deadline = started + 1000 * (request.recheck_seconds ?? Infinity);
  const nameOf = (owner) => owner.slice(owner.indexOf(":") + 1);
  const givenAway = (owner, first) =>
    first.every((diagnostic) => belongsElsewhere(chain(diagnostic.messageText), typeNames.has(nameOf(owner))));
  const order = [...combined].map(([owner, first]) => [givenAway(owner, first) ? 0 : 1, owner, first]);
  order.sort((a, b) => a[0] - b[0]);
  for (const [, owner, first] of order) {
    if (verdicts[owner]) continue;
    const own = lines.filter((_, i) => owners[i] === owner);
    const name = nameOf(owner);
    const diagnostics = Date.now() < deadline ? failing(own, own.map(() => owner)).get(owner) : first;
    for (const diagnostic of diagnostics || []) {
      const levels = chain(diagnostic.messageText);
      if (belongsElsewhere(levels, typeNames.has(name))) continue;
      const reason = levels.length > 1 ? `${levels[0].slice(0, 200)} (${levels[levels.length - 1].slice(0, 200)})` : levels[0].slice(0, 300);
      verdicts[owner] = reason;
      break;
    }
  }
  return { verdicts, seconds: (Date.now() - started) / 1000 };
}

let input = "";
process.stdin.setEncoding("utf8");
process.stdin.on("data", (chunk) => (input += chunk));
process.stdin.on("end", () => {
  let answer;
  try {
    answer = main(JSON.parse(input));
  } catch (error) {
    answer = { error: String((error && error.stack) || error).slice(0, 2000) };
  }
  process.stdout.write(JSON.stringify(answer) + "\n");
});
