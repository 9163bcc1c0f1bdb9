package mnemos

// LexicalSQL lets tests run and EXPLAIN the lexical leg's statement.
const LexicalSQL = lexicalSQL
