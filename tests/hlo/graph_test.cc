// SelectGraph against the operand/user relation computed here from the
// operand tables alone (not ParsedFile's reverse edges): the neighbourhood
// within N edges, the whole computation, the cut; on fixtures and on the
// corpus's largest model (skipped when the corpus is absent).
#include "hlo/graph.h"

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <map>
#include <set>
#include <string>
#include <vector>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "hlo/parser.h"
#include "hlo/query.h"
#include "tests/corpus_files.h"

namespace hlo {
namespace {

using ::testing::ElementsAre;

constexpr char kGraphModule[] =
    R"(HloModule m

%add (x: f32[], y: f32[]) -> f32[] {
  %x = f32[] parameter(0)
  %y = f32[] parameter(1)
  ROOT %sum = f32[] add(f32[] %x, f32[] %y)
}

ENTRY %main (a: f32[8], b: f32[8]) -> f32[] {
  %a = f32[8]{0} parameter(0)
  %b = f32[8]{0} parameter(1)
  %m = f32[8]{0} multiply(f32[8]{0} %a, f32[8]{0} %b)
  %e = f32[8]{0} exponential(f32[8]{0} %m)
  %n = f32[8]{0} negate(f32[8]{0} %e)
  %dead = f32[8]{0} negate(f32[8]{0} %a)
  %z = f32[] constant(0)
  ROOT %r = f32[] reduce(f32[8]{0} %n, f32[] %z), dimensions={0}, to_apply=%add
}
)";

// Undirected adjacency of `computation`'s top-level instructions, from the
// operands as written.
std::map<Id, std::set<Id>> Adjacency(const ParsedFile& file, Id computation) {
  std::map<Id, std::set<Id>> adjacent;
  const Computation& comp = file.computations[computation];
  for (Id i = comp.instructions.begin; i < comp.instructions.end(); ++i) {
    const Instruction& inst = file.instructions[i];
    if (inst.is_nested) continue;
    adjacent[i];
    for (Id o = inst.operands.begin; o < inst.operands.end(); ++o) {
      Id def = file.operands[o].definition;
      if (def == kNone || file.instructions[def].computation != computation ||
          file.instructions[def].is_nested) {
        continue;
      }
      adjacent[i].insert(def);
      adjacent[def].insert(i);
    }
  }
  return adjacent;
}

// Every instruction within `depth` edges of `start`, by repeated expansion.
std::set<Id> Within(const std::map<Id, std::set<Id>>& adjacent, Id start,
                    int depth) {
  std::set<Id> reached = {start}, frontier = {start};
  for (int d = 0; d < depth; ++d) {
    std::set<Id> next;
    for (Id id : frontier) {
      for (Id n : adjacent.at(id)) {
        if (!reached.count(n)) next.insert(n);
      }
    }
    reached.insert(next.begin(), next.end());
    frontier = std::move(next);
  }
  return reached;
}

std::vector<std::string> Names(const ParsedFile& file,
                               const std::vector<Id>& ids) {
  std::vector<std::string> names;
  for (Id id : ids) names.emplace_back(file.Name(file.instructions[id]));
  return names;
}

Graph Around(const ParsedFile& file, std::string_view name, int depth,
             size_t max_nodes = 500) {
  GraphOptions options;
  options.computation = file.modules[0].entry;
  options.around = FindInstruction(file, options.computation, name);
  options.depth = depth;
  options.max_nodes = max_nodes;
  return SelectGraph(file, options);
}

TEST(GraphTest, NeighbourhoodGoesBothWays) {
  auto file = Parse(kGraphModule);
  ASSERT_FALSE(file->HasErrors());
  EXPECT_THAT(Names(*file, Around(*file, "e", 1).nodes),
              ElementsAre("m", "e", "n"));
  EXPECT_THAT(Names(*file, Around(*file, "e", 2).nodes),
              ElementsAre("a", "b", "m", "e", "n", "r"));
  EXPECT_THAT(Names(*file, Around(*file, "e", 0).nodes), ElementsAre("e"));
  Graph graph = Around(*file, "m", 1);
  ASSERT_EQ(graph.edges.size(), 3u);  // a->m (0), b->m (1), m->e (0)
  EXPECT_EQ(file->Name(file->instructions[graph.edges[1].from]), "b");
  EXPECT_EQ(graph.edges[1].operand_index, 1);
  EXPECT_FALSE(graph.cut());
}

TEST(GraphTest, WholeComputationKeepsDeadCodeAndCalls) {
  auto file = Parse(kGraphModule);
  GraphOptions options;
  options.computation = file->modules[0].entry;
  Graph graph = SelectGraph(*file, options);
  EXPECT_THAT(Names(*file, graph.nodes),
              ElementsAre("a", "b", "m", "e", "n", "dead", "z", "r"));
  ASSERT_EQ(graph.calls.size(), 1u);
  EXPECT_EQ(file->Text(file->computation_refs[graph.calls[0].ref].name), "add");
  EXPECT_EQ(graph.edges.size(), 7u);  // dead code keeps its edge a->dead
}

TEST(GraphTest, CutKeepsTheNearest) {
  auto file = Parse(kGraphModule);
  Graph graph = Around(*file, "e", 2, /*max_nodes=*/3);
  EXPECT_TRUE(graph.cut());
  EXPECT_EQ(graph.candidates, 6u);
  EXPECT_THAT(Names(*file, graph.nodes), ElementsAre("m", "e", "n"));
  // Edges only between kept nodes.
  for (const GraphEdge& edge : graph.edges) {
    EXPECT_TRUE(std::count(graph.nodes.begin(), graph.nodes.end(), edge.from));
    EXPECT_TRUE(std::count(graph.nodes.begin(), graph.nodes.end(), edge.to));
  }
  GraphOptions whole;
  whole.computation = file->modules[0].entry;
  whole.max_nodes = 2;  // nearest the root: r, then its operands
  EXPECT_THAT(Names(*file, SelectGraph(*file, whole).nodes),
              ElementsAre("n", "r"));
}

// Node set == Within(...) and edge set == the operands among the nodes.
void ExpectMatchesRelation(const ParsedFile& file,
                           const std::map<Id, std::set<Id>>& adjacent,
                           Id computation, Id start, int depth) {
  GraphOptions options{computation, start, depth, 1u << 30};
  Graph graph = SelectGraph(file, options);
  std::set<Id> expected = Within(adjacent, start, depth);
  EXPECT_EQ(std::set<Id>(graph.nodes.begin(), graph.nodes.end()), expected)
      << file.Name(file.instructions[start]);
  size_t edges = 0;
  for (Id user : expected) {
    const Instruction& inst = file.instructions[user];
    for (Id o = inst.operands.begin; o < inst.operands.end(); ++o) {
      edges += expected.count(file.operands[o].definition);
    }
  }
  EXPECT_EQ(graph.edges.size(), edges);
}

TEST(GraphTest, FixtureMatchesOperandRelation) {
  auto file = Parse(kGraphModule);
  Id entry = file->modules[0].entry;
  const Computation& comp = file->computations[entry];
  auto adjacent = Adjacency(*file, entry);
  for (Id i = comp.instructions.begin; i < comp.instructions.end(); ++i) {
    for (int depth = 0; depth <= 3; ++depth) {
      ExpectMatchesRelation(*file, adjacent, entry, i, depth);
    }
  }
}

TEST(GraphTest, CorpusModelMatchesOperandRelation) {
  namespace fs = std::filesystem;
  fs::path path = corpus_files::CorpusDir() / "dumps" / "xla-benchmarks" /
                  "hlo_mixtral_8x7b_bf16_1x8.hlo";
  std::ifstream in(path, std::ios::binary);
  if (!in) GTEST_SKIP() << "corpus model absent: " << path;
  std::string text((std::istreambuf_iterator<char>(in)),
                   std::istreambuf_iterator<char>());
  auto file = Parse(text);
  ASSERT_FALSE(file->modules.empty());
  // Every 97th instruction of each computation, depth 1 and 2.
  int checked = 0;
  for (Id c = 0; c < file->computations.size(); ++c) {
    const Computation& comp = file->computations[c];
    if (comp.instructions.count < 10) continue;
    auto adjacent = Adjacency(*file, c);
    for (Id i = comp.instructions.begin; i < comp.instructions.end(); i += 97) {
      if (file->instructions[i].is_nested) continue;
      ExpectMatchesRelation(*file, adjacent, c, i, 1);
      ExpectMatchesRelation(*file, adjacent, c, i, 2);
      ++checked;
    }
  }
  EXPECT_GT(checked, 100);
}

}  // namespace
}  // namespace hlo
