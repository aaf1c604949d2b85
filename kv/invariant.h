// LOCKSTEP_INVARIANT(condition, why): a fact the code relies on, checked in every build.
//
// Unlike assert, it stays in Release, where the determinism and catalogue tests and every
// user's exploration run: a simulator that broke one of its own rules would otherwise hand out
// verdicts about a system that does not exist. A broken invariant is a bug in lockstep, never a
// user's mistake, so it is not an error to handle: it prints where, the condition and `why`
// (a string literal saying what must hold) on stderr and aborts, leaving the seed that found
// it to be replayed under a debugger. Conditions run on hot paths: keep them to a comparison
// or two, and put anything dearer under assert.
#pragma once

namespace lockstep::detail {
[[noreturn]] void invariant_broken(const char* file, int line, const char* condition,
                                   const char* why);
}  // namespace lockstep::detail

#define LOCKSTEP_INVARIANT(condition, why)                                                   \
  do {                                                                                       \
    if (!(condition)) [[unlikely]]                                                           \
      ::lockstep::detail::invariant_broken(__FILE__, __LINE__, #condition, why);             \
  } while (false)
