#include "hlo/proto/callee_order.h"

#include <utility>

namespace hlo::proto::internal {

std::vector<int> CalleesFirstOrder(
    int n, const std::function<void(int, std::vector<int>*)>& callees) {
  std::vector<int> order;
  order.reserve(n);
  std::vector<char> state(n, 0);            // 0 new, 1 entered, 2 done
  std::vector<std::pair<int, bool>> stack;  // position, callees pushed
  std::vector<int> found;
  for (int root = 0; root < n; ++root) {
    stack.push_back({root, false});
    while (!stack.empty()) {
      auto [k, expanded] = stack.back();
      stack.pop_back();
      if (state[k] == 2) continue;
      if (expanded) {
        state[k] = 2;
        order.push_back(k);
        continue;
      }
      if (state[k] == 1) continue;  // a cycle
      state[k] = 1;
      stack.push_back({k, true});
      found.clear();
      callees(k, &found);
      // Reversed, so that they pop in the instructions' order.
      for (auto it = found.rbegin(); it != found.rend(); ++it) {
        if (state[*it] == 0) stack.push_back({*it, false});
      }
    }
  }
  return order;
}

}  // namespace hlo::proto::internal
