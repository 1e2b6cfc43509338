// Precompiled for the gtest binaries under tests/: json.h, GoogleTest and
// GoogleMock.
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "json.h"
