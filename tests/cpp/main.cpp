// The doctest runner shared by every C++ test file; built natively and to WebAssembly (run under Node).
// Not a test itself.
#define DOCTEST_CONFIG_IMPLEMENT_WITH_MAIN
#include <doctest/doctest.h>
