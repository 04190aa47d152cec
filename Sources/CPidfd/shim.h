#ifndef CPIDFD_SHIM_H
#define CPIDFD_SHIM_H
// glibc 2.36's pidfd_open and pidfd_send_signal (sys/pidfd.h), which Swift's Glibc module does not
// include: the Secret Service provider holds a caller's process by a pidfd so a reused pid is never
// mistaken for it. No wrappers: the functions are not variadic.
#include <signal.h>
#include <sys/pidfd.h>
#endif
