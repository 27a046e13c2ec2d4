// Entry point of the `tlparse` executable; everything lives in cli.cpp so tests can reach it.
#include "cli/cli.h"

int main(int argc, char** argv) {
  return tlparse::cli::run(argc, argv);
}
