// atomic_file.cpp — see atomic_file.hpp (placeholder until implemented).
#include "plumbing/atomic_file.hpp"
