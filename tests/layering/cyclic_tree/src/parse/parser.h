// A fixture for the folder-cycle check: parse/ includes emit/, which includes parse/ back.
#pragma once
#include "emit/emitter.h"
