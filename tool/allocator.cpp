// jemalloc's start-up options for the gradlint executable (CMakeLists.txt links jemalloc into it
// unless a sanitizer brings its own allocator). jemalloc reads this variable before the first
// allocation; MALLOC_CONF in the environment still adds to it.
//
// thp:always backs the heap with transparent huge pages where the system allows them (its
// `madvise` default included). A run on torch's sources touches about 60 MB of heap: in 4 KiB
// pages that is ~15,000 page faults, each expensive in a virtual machine, and as many pages for
// the kernel to free at exit (serial time, whatever -j says); in 2 MiB pages, ~2,000 faults.
extern "C" {
const char* malloc_conf = "thp:always,metadata_thp:always";
}
