// temp_dir.cpp — see temp_dir.hpp (placeholder until implemented).
#include "plumbing/temp_dir.hpp"
