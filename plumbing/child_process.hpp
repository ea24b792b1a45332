// child_process.hpp — placeholder: the one child-process type (see issue 10).
#pragma once
