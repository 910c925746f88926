// Generated from dot.ohm by scripts/generate-grammar.mjs (`pnpm --filter @attractor/dot generate`).
// Do not edit: edit dot.ohm and regenerate.

/** The text of `dot.ohm`, the Ohm grammar of the Attractor DOT subset (spec §2.2). */
export const dotGrammarSource = `// The Attractor DOT subset (spec §2.2, widened by DESIGN.md "Parsing" and "Dialect").
//
// \`parseDot\` does not match a whole file with \`Graph\`: a scanner (scan-dot.ts) first replaces comments
// and \`#\` preprocessor lines with spaces, then cuts the body into runs of whole statements, and each
// run is matched with \`Statements\` (string bodies elided, chunk-text.ts). \`Graph\` describes the whole
// file; the tests check that both ways give the same AST.
//
// Some alternatives accept a construct only so that the semantics can reject it with a specific
// message and fix (\`strict\`, undirected \`graph\`, \`--\`, quoted or numeric ids, a key without a value).
Dot {
  Graph = Header Statement* "}"

  Header = strictKw? GraphKind GraphId? "{"

  GraphKind
    = digraphKw  -- directed
    | graphKw    -- undirected

  GraphId (a graph name)
    = identifier  -- bare
    | string      -- quoted
    | number      -- numeric

  Statements = Statement*

  Statement = Stmt ";"?

  // Ordered by how often each form occurs, so that most statements match on the first or second
  // try. \`node\`/\`edge\`/\`graph\` fail the first two (no "->", no "=") and reach \`defaults\`.
  Stmt
    = NodeId EdgeTail+ AttrBlock*       -- edgeChain
    | Attribute                         -- attributeDeclaration
    | defaultsKw AttrBlock+             -- defaults
    | Subgraph                          -- subgraph
    | NodeId AttrBlock*                 -- node

  Subgraph = SubgraphOpen Statement* "}"

  // Also a start rule: the scanner cuts the body of a subgraph that stands alone into chunks too.
  SubgraphOpen
    = subgraphKw SubgraphId? "{"  -- named
    | "{"                         -- anonymous

  SubgraphId (a subgraph name)
    = identifier  -- bare
    | string      -- quoted
    | number      -- numeric

  EdgeTail = EdgeOp EdgeTarget

  EdgeOp
    = "->"  -- directed
    | "--"  -- undirected

  EdgeTarget
    = NodeId    -- node
    | Subgraph  -- subgraph

  NodeId (a node id)
    = nodeName  -- bare
    | string    -- quoted
    | number    -- numeric

  // \`~"]"\` stops the list without trying every form of an item first.
  AttrBlock = "[" (~"]" AttrItem)* "]"

  AttrItem
    = Attribute AttrSep?  -- pair
    | key AttrSep?        -- keyOnly

  AttrSep = "," | ";"

  Attribute = key "=" Value

  Value (an attribute value)
    = string ("+" string)*  -- string
    | scalar                -- scalar

  // ---- lexical rules ----
  // Character classes are written as inline ranges rather than rule applications (\`digit\`,
  // \`idChar\`): Ohm memoizes every application, and per character that is most of the cost
  // (issue 2, "Speed and memory").

  key (an attribute name)
    = dottedName  -- bare
    | string      -- quoted

  dottedName = identifier ("." identifier)*

  scalar
    = float     -- float
    | duration  -- duration
    | integer   -- integer
    | boolean   -- boolean
    | bareValue -- bare

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

  // Keywords are not excluded here (that would try six keywords before every id); the semantics
  // rejects a keyword used as an id, with a message that says so.
  nodeName = identifier
  identifier (an identifier) = ("a".."z" | "A".."Z" | "_") ("a".."z" | "A".."Z" | "0".."9" | "_")*
  idChar = "a".."z" | "A".."Z" | "0".."9" | "_"

  // Keywords in any case (DESIGN.md "Parsing"), spelled letter by letter because the built-in
  // \`caseInsensitive<...>\` is a parameterized rule whose memo key is rebuilt on every application.
  // \`graph [...]\`, \`node [...]\` or \`edge [...]\`: one application in front of every statement.
  defaultsKw
    = graphKw  -- graph
    | nodeKw   -- node
    | edgeKw   -- edge
  strictKw = ("s" | "S") ("t" | "T") ("r" | "R") ("i" | "I") ("c" | "C") ("t" | "T") ~idChar
  digraphKw = ("d" | "D") ("i" | "I") graphKw
  graphKw = ("g" | "G") ("r" | "R") ("a" | "A") ("p" | "P") ("h" | "H") ~idChar
  subgraphKw = ("s" | "S") ("u" | "U") ("b" | "B") graphKw
  nodeKw = ("n" | "N") ("o" | "O") ("d" | "D") ("e" | "E") ~idChar
  edgeKw = ("e" | "E") ("d" | "D") ("g" | "G") ("e" | "E") ~idChar

  // No \`comment\` rule: as spec §2.3 says, comments are stripped before parsing. The scanner
  // (scan-dot.ts) replaces them, and \`#\` preprocessor lines, with spaces, so the built-in \`space\`
  // (one range) is all the grammar needs, and skipping spaces stays cheap.
}
`;
