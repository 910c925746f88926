// Generated from dot.ohm by scripts/generate-grammar.mjs (`pnpm --filter @attractor/dot generate`).
// Do not edit: edit dot.ohm and regenerate.

/** The text of `dot.ohm`, the Ohm grammar of the Attractor DOT subset (spec §2.2). */
export const dotGrammarSource = `// The Attractor DOT subset (spec §2.2, widened by docs/architecture.md "Parsing" and "Dialect").
//
// \`parseDot\` does not match a whole file with \`Graph\`: a scanner (scan-dot.ts) first replaces comments
// and \`#\` preprocessor lines with spaces, then cuts the body into runs of whole statements, and each
// run is matched with \`Statements\`, with the bodies of quoted strings and the tails of identifiers
// elided (\`"…"\` becomes \`""\`, \`stage_12\` becomes \`s\`; chunk-text.ts). \`Graph\` describes the whole
// file; the tests check that both ways give the same AST.
//
// Speed (issue 2): every rule application costs Ohm a memo entry and a CST node, so the grammar has
// few pass-through rules, alternatives without a case name where the AST builder (to-dot-ast.ts) can
// tell them apart by the rule they applied, and character classes as inline ranges.
//
// Some alternatives accept a construct only so that the AST builder can reject it with a specific
// message and fix (\`strict\`, undirected \`graph\`, \`--\`, quoted or numeric ids, a key without a value).
Dot {
  Graph = Header Stmt* "}"

  Header = strictKw? GraphKind GraphId? "{"

  GraphKind = digraphKw | graphKw

  GraphId (a graph name) = identifier | string | number

  Statements = Stmt*

  // The first alternative covers node statements, edge chains and \`node\`/\`edge\`/\`graph [...]\`
  // defaults (the AST builder tells them apart by the keyword and the \`->\`), so that the statements
  // a pipeline is made of match on the first try. \`~("=" | ".")\` leaves \`key = value\` to the second.
  Stmt
    = NodeId ~("=" | ".") EdgeTail* AttrBlock* ";"?  -- nodeOrEdge
    | Attribute ";"?                                -- attributeDeclaration
    | Subgraph ";"?                                 -- subgraph

  Subgraph = SubgraphOpen Stmt* "}"

  // Also a start rule: the scanner cuts the body of a subgraph that stands alone into chunks too.
  SubgraphOpen
    = subgraphKw SubgraphId? "{"  -- named
    | "{"                         -- anonymous

  SubgraphId (a subgraph name) = identifier | string | number

  // \`--\` (undirected) and a subgraph as target are accepted only to be rejected with a fix.
  EdgeTail = ("->" | "--") (NodeId | Subgraph)

  // \`~subgraphKw\`: \`subgraph name {\` is a subgraph, not a node called "subgraph".
  NodeId (a node id) = ~subgraphKw identifier | string | number

  // \`~"]"\` stops the list without trying every form of an item first. An item without \`=\` (a key
  // alone) is rejected by the AST builder with a fix.
  AttrBlock = "[" (~"]" AttrItem)* "]"

  // Also a start rule: the items of a long attribute block are matched in pieces (split-attribute-blocks.ts).
  AttrItems = (~"]" AttrItem)*

  AttrItem = key ("=" Value)? ("," | ";")?

  Attribute = key "=" Value

  Value (an attribute value)
    = string ("+" string)*  -- string
    | float
    | duration
    | integer
    | boolean
    | bareValue

  // ---- lexical rules ----

  key (an attribute name) = dottedName | string

  dottedName = identifier ("." identifier)*

  float = "-"? "0".."9"* "." "0".."9"+ ~bareChar
  duration = "-"? "0".."9"+ ("ms" | "s" | "m" | "h" | "d") ~bareChar
  integer = "-"? "0".."9"+ ~bareChar
  number = float | integer
  boolean = ("true" | "false") ~bareChar
  bareValue = ("a".."z" | "A".."Z" | "_") ("a".."z" | "A".."Z" | "0".."9" | "_" | "." | ":" | "-")*
  bareChar = "a".."z" | "A".."Z" | "0".."9" | "_" | "." | ":" | "-"

  // A quoted string. \`parseDot\` hands Ohm the strings with their bodies elided (chunk-text.ts); the
  // body rule is for the whole-text match and keeps to primitives all the same.
  string (a quoted string) = "\\"" (~"\\"" "\\\\"? any)* "\\""

  // Keywords other than \`subgraph\` are not excluded here (that would try six keywords before every
  // id); the AST builder reads \`node\`/\`edge\`/\`graph [...]\` as defaults and rejects any other use of a
  // keyword as an id, with a message that says so.
  identifier (an identifier) = ("a".."z" | "_" | "A".."Z") ("a".."z" | "_" | "0".."9" | "A".."Z")*
  idChar = "a".."z" | "A".."Z" | "0".."9" | "_"

  // Keywords in any case (docs/architecture.md "Parsing"), spelled letter by letter because the built-in
  // \`caseInsensitive<...>\` is a parameterized rule whose memo key is rebuilt on every application.
  strictKw = ("s" | "S") ("t" | "T") ("r" | "R") ("i" | "I") ("c" | "C") ("t" | "T") ~idChar
  digraphKw = ("d" | "D") ("i" | "I") graphKw
  graphKw = ("g" | "G") ("r" | "R") ("a" | "A") ("p" | "P") ("h" | "H") ~idChar
  subgraphKw = ("s" | "S") ("u" | "U") ("b" | "B") graphKw

  // No \`comment\` rule: as spec §2.3 says, comments are stripped before parsing. The scanner
  // (scan-dot.ts) replaces them, and \`#\` preprocessor lines, with spaces. Ohm skips \`spaces\` before
  // every token of a syntactic rule; the built-in is \`space*\`, one rule application per character,
  // so it is overridden with the same character class (the built-in \`space\`) as an inline range.
  spaces := "\\x00".." "*
}
`;
