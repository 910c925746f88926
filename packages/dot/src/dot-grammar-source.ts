// Generated from dot.ohm by scripts/generate-grammar.mjs (`pnpm --filter @attractor/dot generate`).
// Do not edit: edit dot.ohm and regenerate.

/** The text of `dot.ohm`, the Ohm grammar of the Attractor DOT subset (spec §2.2). */
export const dotGrammarSource = `// The Attractor DOT subset (spec §2.2, widened by DESIGN.md "Parsing" and "Dialect").
//
// \`parseDot\` does not match a whole file with \`Graph\`: a scanner (scan-dot.ts) first masks comments
// and \`#\` preprocessor lines, then cuts the body into runs of whole statements, and each run is
// matched with \`Statements\`. \`Graph\` describes the whole file and is what the tests compare against.
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

  Stmt
    = graphKw AttrBlock+                -- graphAttributes
    | nodeKw AttrBlock+                 -- nodeDefaults
    | edgeKw AttrBlock+                 -- edgeDefaults
    | Subgraph                          -- subgraph
    | Attribute                         -- attributeDeclaration
    | NodeId EdgeTail+ AttrBlock*       -- edgeChain
    | NodeId AttrBlock*                 -- node

  Subgraph
    = subgraphKw SubgraphId? "{" Statement* "}"  -- named
    | "{" Statement* "}"                         -- anonymous

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

  AttrBlock = "[" AttrItem* "]"

  AttrItem
    = Attribute AttrSep?  -- pair
    | key AttrSep?        -- keyOnly

  AttrSep = "," | ";"

  Attribute = key "=" Value

  Value (an attribute value)
    = NonemptyListOf<string, "+">  -- string
    | scalar                       -- scalar

  // ---- lexical rules ----

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

  float = "-"? digit* "." digit+ ~bareChar
  duration = "-"? digit+ durationUnit ~bareChar
  durationUnit = "ms" | "s" | "m" | "h" | "d"
  integer = "-"? digit+ ~bareChar
  number = float | integer
  boolean = ("true" | "false") ~bareChar
  bareValue = idStart bareChar*
  bareChar = idChar | "." | ":" | "-"

  // A quoted string. The body is one iteration over primitives, with no rule application per
  // character, because prompts are most of a pipeline's bytes (issue 2, "Speed and memory").
  string (a quoted string) = "\\"" (~"\\"" "\\\\"? any)* "\\""

  nodeName = ~keyword identifier
  identifier (an identifier) = idStart idChar*
  idStart = "a".."z" | "A".."Z" | "_"
  idChar = "a".."z" | "A".."Z" | "_" | "0".."9"

  keyword = strictKw | digraphKw | graphKw | subgraphKw | nodeKw | edgeKw
  strictKw = caseInsensitive<"strict"> ~idChar
  digraphKw = caseInsensitive<"digraph"> ~idChar
  graphKw = caseInsensitive<"graph"> ~idChar
  subgraphKw = caseInsensitive<"subgraph"> ~idChar
  nodeKw = caseInsensitive<"node"> ~idChar
  edgeKw = caseInsensitive<"edge"> ~idChar

  // The scanner replaces comments with spaces before matching; they stay here so that the grammar
  // describes the whole language on its own.
  space += comment
  comment
    = "//" (~"\\n" any)*       -- line
    | "/*" (~"*/" any)* "*/"  -- block
}
`;
