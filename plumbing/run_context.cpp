// run_context.cpp — see run_context.hpp (placeholder until implemented).
#include "plumbing/run_context.hpp"
