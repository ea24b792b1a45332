// child_process.cpp — see child_process.hpp (placeholder until implemented).
#include "plumbing/child_process.hpp"
