#include "base/run_parallel.h"

#include <atomic>
#include <new>
#include <system_error>
#include <thread>
#include <vector>

#include "base/large_buffer.h"

namespace hlo::base {

bool RunInParallel(int parts, const std::function<void(int)>& work) {
  std::atomic<bool> out_of_memory{false};
  auto guarded = [&](int part) {
    try {
      work(part);
    } catch (const std::bad_alloc&) {
      out_of_memory = true;
    }
  };
  std::vector<std::thread> threads;
  for (int part = 1; part < parts; ++part) {
    try {
      threads.emplace_back([&guarded, part] {
        AdviseThreadHeapHugePages();
        guarded(part);
      });
    } catch (const std::system_error&) {  // no thread: this one runs it
      guarded(part);
    } catch (const std::bad_alloc&) {
      guarded(part);
    }
  }
  if (parts > 0) guarded(0);
  for (std::thread& thread : threads) thread.join();
  return !out_of_memory;
}

}  // namespace hlo::base
