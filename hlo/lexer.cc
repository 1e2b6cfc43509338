// Placeholder until the lexer lands.
