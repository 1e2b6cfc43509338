// The raw readers of parser_fast.cc must build what the token-by-token path
// builds. Each case is parsed as the printer writes it (raw readers) and
// respelled with extra blanks and comments (which they refuse, so the
// general path reads it); the two syntax models must describe the same
// module, and errors met half way through a line must be the general path's.
#include <iterator>
#include <string>
#include <string_view>

#include "gtest/gtest.h"
#include "hlo/lexer.h"
#include "hlo/parser.h"
#include "hlo/text_hash.h"

namespace hlo {
namespace {

// The syntax model without byte offsets, which differ between spellings.
std::string Describe(const ParsedFile& file) {
  std::string out;
  auto shape = [&](Id id) {
    return id == kNone ? std::string("-")
                       : std::string(file.Text(file.shapes[id].span));
  };
  for (const Instruction& inst : file.instructions) {
    out += std::string(file.Name(inst)) + (inst.is_root ? " root" : "") +
           (inst.is_nested ? " nested" : "") + " = " + shape(inst.shape) + " " +
           std::string(file.Text(inst.opcode_span)) + "(";
    for (Id o = inst.operands.begin; o < inst.operands.end(); ++o) {
      const Operand& op = file.operands[o];
      out += shape(op.shape) + " " + std::string(file.Text(op.name)) + " def" +
             std::to_string(op.definition) + " nested" +
             std::to_string(op.nested) + "; ";
    }
    out += ")";
    for (Id a = inst.attributes.begin; a < inst.attributes.end(); ++a) {
      out += ", " + std::string(file.Text(file.attributes[a].key)) + "=" +
             std::string(file.Text(file.attributes[a].value));
    }
    for (Id r = inst.called.begin; r < inst.called.end(); ++r) {
      out += " calls " + std::to_string(file.computation_refs[r].computation);
    }
    for (Id r = inst.control_predecessors.begin;
         r < inst.control_predecessors.end(); ++r) {
      out += " after " + std::to_string(file.name_refs[r].definition);
    }
    out += "\n";
  }
  for (const Computation& comp : file.computations) {
    out += std::string(file.Name(comp)) + " (";
    for (Id p = comp.parameters.begin; p < comp.parameters.end(); ++p) {
      out += std::string(file.Text(file.parameters[p].name)) + ": " +
             shape(file.parameters[p].shape) + ", ";
    }
    out += ") -> " + shape(comp.result_shape) + "\n";
  }
  out += "shapes " + std::to_string(file.shapes.size()) + " operands " +
         std::to_string(file.operands.size()) + "\n";
  for (const Diagnostic& d : file.diagnostics) out += d.message + "\n";
  return out;
}

struct Case {
  std::string_view printed;    // the printer's spelling: raw readers
  std::string_view respelled;  // blanks and comments: the general path
};

constexpr Case kCases[] = {
    {"  %a = f32[2]{0} add(%p, %q), metadata={op_name=\"x\"}",
     "  %a  =  f32[2]{0}  add( %p , %q )  ,  metadata={op_name=\"x\"}"},
    {"  %t = (f32[2]{0}, f32[2]{0}) tuple(%p, %q, %p, %q, %p, /*index=5*/%q)",
     "  %t = (f32[2]{0}, f32[2]{0}) tuple(%p, %q, %p, %q, %p, %q /*5*/ )"},
    {"  %r = f32[] reduce(%p, %c), dimensions={0}, to_apply=%sum",
     "  %r = f32[] reduce(%p,\n %c)  , dimensions={0},\n to_apply=%sum"},
    {"  %n = f32[2]{0} add(%p, f32[2]{0} multiply(%p, %q))",
     "  %n  = f32[2]{0} add( %p, f32[2]{0} multiply(%p, %q))"},
    {"  %u = f32[2]{0} negate(%p), control-predecessors={%a}",
     "  %u = f32[2]{0} negate( %p ), control-predecessors={%a}"},
    {"  %v = f32[2]{0} negate(%undefined), dimensions={x}",
     "  %v = f32[2]{0} negate( %undefined ) , dimensions={x}"},
    {"  %w = f32[2]{0} add(%p, %q), dimensions={0}, dimensions={0}",
     "  %w = f32[2]{0} add(%p, %q) , dimensions={0} ,dimensions={0}"},
    {"  %x = f32[2]{0} add(%p, %q), calls=%sum, %sum",
     "  %x = f32[2]{0} add(%p, %q) , calls=%sum, %sum"},
    {"  %y = f32[2]{0} custom-call-start(%p), custom_call_target=\"a\"",
     "  %y = f32[2]{0}  custom-call-start(%p), custom_call_target=\"a\""},
    {"  %z = f32[2]{0} add(%p, %q) , x=1", "  %z = f32[2]{0} add(%p,%q) , x=1"},
    // A recent shape's text followed by '{' is a longer shape.
    {"  %m = f32[2] add(%p, %q)\n  %m2 = f32[2] add(%p, %q)\n"
     "  %n = f32[2]{0} add(%m, %q)\n  %o = (f32[2], f32[2]) tuple(%m, %n)\n"
     "  %o2 = (f32[2], f32[2]){0} tuple(%m, %n)",
     "  %m = f32[2]  add(%p, %q)\n  %m2 =  f32[2] add(%p, %q)\n"
     "  %n =  f32[2]{0} add(%m, %q)\n  %o =  (f32[2], f32[2]) tuple(%m, %n)\n"
     "  %o2 =  (f32[2], f32[2]){0} tuple(%m, %n)"},
    {"  %e = f32[2]{0} add(%p, %q), metadata=",
     "  %e = f32[2]{0} add(%p , %q), metadata="},
};

std::string OneLineModule(std::string_view line) {
  return "HloModule m\n\n%sum (a: f32[], b: f32[]) -> f32[] {\n"
         "  %a = f32[] parameter(0)\n  %b = f32[] parameter(1)\n"
         "  ROOT %s = f32[] add(%a, %b)\n}\n\n"
         "ENTRY %main (p: f32[2], q: f32[2]) -> f32[2] {\n"
         "  %p = f32[2]{0} parameter(0)\n  %q = f32[2]{0} parameter(1)\n"
         "  %c = f32[] constant(0)\n  %a = f32[2]{0} add(%p, %q)\n" +
         std::string(line) + "\n  ROOT %out = f32[2]{0} copy(%p)\n}\n";
}

TEST(ParserFastTest, RawReadersBuildWhatTheTokenPathBuilds) {
  for (const Case& c : kCases) {
    const std::string printed = OneLineModule(c.printed);
    const std::string respelled = OneLineModule(c.respelled);
    auto a = Parse(printed);
    auto b = Parse(respelled);
    EXPECT_EQ(Describe(*a), Describe(*b)) << c.printed;
  }
}

TEST(ParserFastTest, SignaturesReadRawAsTheTokenPathReadsThem) {
  constexpr std::string_view kSignatures[][2] = {
      {"%g (x: f32[], %y: f32[2]{0}) -> f32[] {",
       "%g ( x : f32[] ,%y: f32[2]{0} )  ->  f32[] {"},
      {"%g (x: f32[], y: (f32[], f32[2]{0})) -> (f32[], f32[2]{0}) {",
       "%g (x: f32[] , y:  (f32[], f32[2]{0}))\n-> (f32[], f32[2]{0}) {"},
      {"%g () -> f32[] {", "%g ( ) -> f32[] {"},
      {"%g (x: f32[], y: f32[]) -> f32[3] {",
       "%g (x: f32[], y f32[]) -> f32[3] {"},
      {"%g (x: f32[], 1: f32[]) -> f32[] {",
       "%g (x: f32[] , 1: f32[]) -> f32[] {"},
  };
  for (const auto& [printed, respelled] : kSignatures) {
    auto module = [](std::string_view signature) {
      return "HloModule m\n\n%f (a: f32[], b: f32[2]{0}) -> (f32[], "
             "f32[2]{0}) {\n  ROOT %t = (f32[], f32[2]{0}) tuple(%a, %b)\n}\n"
             "\n" +
             std::string(signature) + "\n  ROOT %c = f32[] constant(0)\n}\n";
    };
    const std::string a_text = module(printed);
    const std::string b_text = module(respelled);
    auto a = Parse(a_text);
    auto b = Parse(b_text);
    EXPECT_EQ(Describe(*a), Describe(*b)) << printed;
  }
}

TEST(ParserFastTest, ErrorsHalfWayThroughALineAreTheGeneralPaths) {
  struct Expected {
    std::string_view line;
    std::string_view first_error;  // line:column (1-based): message
  };
  constexpr Expected kErrors[] = {
      {"  %e = f32[2]{0} add(%p, ), x=1",
       "14:26: expected an operand name, found ')'"},
      {"  %e = f32[2]{0} add(%p, %q), dimensions=",
       "15:3: invalid 'dimensions': expected '{'"},
      {"  %e = f32[2]{0} add(%p, %q) %q", "15:3: expected '=', found 'ROOT'"},
      {"  %e = f32[2]{0} add(%, %q)",
       "14:22: expected an operand name, found '%'"},
      {"  %e = f32[2]{0} frobnicate(%p)", "14:18: unknown opcode 'frobnicate'"},
  };
  for (const Expected& e : kErrors) {
    const std::string text = OneLineModule(e.line);
    auto file = Parse(text);
    ASSERT_FALSE(file->diagnostics.empty()) << e.line;
    const Diagnostic& d = file->diagnostics.front();
    LineColumn lc = file->lines().ToLineColumn(d.span.begin);
    EXPECT_EQ(std::to_string(lc.line + 1) + ":" +
                  std::to_string(lc.column + 1) + ": " + d.message,
              e.first_error);
  }
}

// Valid `key=value` texts are remembered, not invalid ones: a bad value
// repeated is reported at each place.
TEST(ParserFastTest, RepeatedAttributeTextsAreReportedEachTime) {
  const std::string text = OneLineModule(
      "  %d = f32[2]{0} add(%p, %q), dimensions={0}\n"
      "  %e = f32[2]{0} add(%p, %q), dimensions={x}\n"
      "  %f = f32[2]{0} add(%p, %q), dimensions={0}\n"
      "  %g = f32[2]{0} add(%p, %q), dimensions={x}");
  auto file = Parse(text);
  std::string errors;
  for (const Diagnostic& d : file->diagnostics) {
    errors +=
        std::to_string(file->lines().ToLineColumn(d.span.begin).line + 1) +
        ": " + d.message + "\n";
  }
  EXPECT_EQ(errors,
            "15: invalid 'dimensions': expected an integer\n"
            "17: invalid 'dimensions': expected an integer\n");
}

// The lexer steps over a line break and the next line's indent itself when
// a token follows; every other line start still goes through SkipTrivia.
TEST(ParserFastTest, LineStartsLexAsBefore) {
  const std::string_view text =
      "a\n  %b\n\t}\n# c\n  d\n*** Begin x ***\ne\n// -----\nf\n"
      "  \n  g /*x*/\n  // y\n\t\th\n  *i";
  Lexer lexer(text);
  std::string tokens;
  for (Token t = lexer.Next(); t.kind != TokenKind::kEof; t = lexer.Next()) {
    tokens += t.kind == TokenKind::kSeparator ? std::string("|")
                                              : std::string(lexer.Text(t.span));
    tokens += " ";
  }
  EXPECT_EQ(tokens, "a %b } d | e | f g h * i ");
}

// The name table is emptied between computations, slot by slot after a
// small one and whole after a big one: names never leak into the next.
TEST(ParserFastTest, NamesStayInTheirComputation) {
  std::string text =
      "HloModule m\n\n%big (p: f32[]) -> f32[] {\n  %p = f32[] parameter(0)\n";
  for (int i = 0; i < 40; ++i) {
    text += "  %b" + std::to_string(i) + " = f32[] negate(%p)\n";
  }
  text += "  ROOT %r = f32[] negate(%b39)\n}\n\n";
  for (int c = 0; c < 3; ++c) {
    text += "%small" + std::to_string(c) +
            " (p: f32[]) -> f32[] {\n  %p = f32[] parameter(0)\n"
            "  %s = f32[] negate(%p)\n  %s = f32[] negate(%b1)\n"
            "  ROOT %r = f32[] add(%s, %p)\n}\n\n";
  }
  text +=
      "ENTRY %e (p: f32[]) -> f32[] {\n  %p = f32[] parameter(0)\n"
      "  ROOT %r = f32[] negate(%s)\n}\n";
  auto file = Parse(text);
  std::string errors;
  for (const Diagnostic& d : file->diagnostics) errors += d.message + "\n";
  EXPECT_EQ(errors,
            "redefinition of 's'\nuse of undefined value 'b1'\n"
            "redefinition of 's'\nuse of undefined value 'b1'\n"
            "redefinition of 's'\nuse of undefined value 'b1'\n"
            "use of undefined value 's'\n");
}

// TextEq compares in words: a difference at every position of every length
// around the word sizes is still seen.
TEST(ParserFastTest, TextEqSeesEveryByte) {
  for (size_t n = 0; n <= 40; ++n) {
    const std::string a(n, 'x');
    EXPECT_TRUE(TextEq()(a, std::string(n, 'x')));
    EXPECT_FALSE(TextEq()(a, std::string(n + 1, 'x')));
    for (size_t i = 0; i < n; ++i) {
      std::string b = a;
      b[i] = 'y';
      EXPECT_FALSE(TextEq()(a, b)) << n << " " << i;
    }
  }
}

// ScanBalanced skips plain bytes 16 at a time: it must stop where a byte by
// byte scan stops, whatever the offsets of brackets, strings and comments.
Offset ScanBalancedByteByByte(std::string_view text, Offset begin) {
  uint32_t depth = 0;
  for (Offset i = begin; i < text.size();) {
    const char c = text[i];
    if (c == '{' || c == '(' || c == '[') {
      ++depth;
      ++i;
    } else if (c == '}' || c == ')' || c == ']') {
      ++i;
      if (--depth == 0) return i;
    } else if (c == '"') {
      const Offset end = ScanString(text, i);
      if (end == kNone) return kNone;
      i = end;
    } else if (c == '/' && i + 1 < text.size() && text[i + 1] == '*') {
      const size_t end = text.find("*/", i + 2);
      if (end == std::string_view::npos) return kNone;
      i = static_cast<Offset>(end) + 2;
    } else {
      ++i;
    }
  }
  return kNone;
}

TEST(ParserFastTest, ScanBalancedStopsWhereAByteScanStops) {
  constexpr std::string_view kPieces[] = {
      "{", "}",   "(",          ")",
      "[", "]",   "\"a}\"",     "/*)*/",
      "/", "x",   "abcdefghij", "0,1,2,3,4,5,6,7,8,9,10,11,12",
      " ", "\n",  "<=",         "\\",
      "'", "\x80"};
  uint32_t seed = 1;
  auto next = [&] {
    seed = seed * 1103515245u + 12345u;
    return seed >> 8;
  };
  for (int round = 0; round < 3000; ++round) {
    std::string text = "{";
    const int pieces = static_cast<int>(next() % 40);
    for (int k = 0; k < pieces; ++k) {
      text += kPieces[next() % std::size(kPieces)];
    }
    EXPECT_EQ(ScanBalanced(text, 0), ScanBalancedByteByByte(text, 0)) << text;
  }
}

}  // namespace
}  // namespace hlo
