// The lockstep program's heap in transparent huge pages.
//
// Why: a simulated run's memory grows all the time (a store that is never compacted keeps
// every revision), and on these virtual machines the first touch of a 4 KiB page is
// expensive: about 3 ms of CPU time per MiB touched, against well under 0.1 ms per MiB in
// 2 MiB pages (measured with a 256 MiB first-touch loop). Page faults and the allocator
// populating fresh memory were a third of the KV load's CPU time.
//
// Contract: install_huge_page_heap() makes tcmalloc (which the lockstep program links) take
// its memory from the system in 2 MiB-aligned regions that the kernel is asked to back with
// transparent huge pages (madvise MADV_HUGEPAGE). It changes where memory comes from, never
// what a run does. Where the kernel gives no huge pages (transparent_hugepage set to
// "never"), the regions are ordinary memory; where a region cannot be mapped at all, tcmalloc's
// own system allocator serves the request. Call it once, early in main, before any thread
// starts. Returns false (and changes nothing) when the allocator has no pluggable system
// allocator.
#pragma once

namespace lockstep::cli {

bool install_huge_page_heap();

}  // namespace lockstep::cli
