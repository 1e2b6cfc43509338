// Precompiled for targets that speak JSON (server/, tests): common.h and
// nlohmann's single header, ~14k lines on its own.
#include "common.h"
#include "nlohmann/json.hpp"
