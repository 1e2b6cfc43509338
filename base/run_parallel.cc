#include "base/run_parallel.h"

#include <atomic>
#include <new>
#include <system_error>
#include <thread>
#include <vector>

namespace hlo::base {

bool RunInParallel(int parts, const std::function<void(int, bool)>& work) {
  std::atomic<bool> out_of_memory{false};
  auto guarded = [&](int part, bool own_thread) {
    try {
      work(part, own_thread);
    } catch (const std::bad_alloc&) {
      out_of_memory = true;
    }
  };
  std::vector<std::thread> threads;
  std::vector<char> refused;
  try {
    threads.reserve(parts > 1 ? parts - 1 : 0);
    refused.assign(parts > 0 ? parts : 0, 0);
  } catch (const std::bad_alloc&) {
    for (int part = 0; part < parts; ++part) guarded(part, part != 0);
    return !out_of_memory;
  }
  for (int part = 1; part < parts; ++part) {
    try {
      threads.emplace_back(guarded, part, true);
    } catch (const std::system_error&) {
      refused[part] = 1;
    } catch (const std::bad_alloc&) {
      refused[part] = 1;
    }
  }
  if (parts > 0) guarded(0, false);
  for (int part = 1; part < parts; ++part) {
    if (refused[part]) guarded(part, false);
  }
  for (std::thread& thread : threads) thread.join();
  return !out_of_memory;
}

}  // namespace hlo::base
