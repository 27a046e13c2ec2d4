// A fixture for the folder-cycle check: emit/ includes parse/ back (see parse/parser.h).
#pragma once
#include "parse/parser.h"
