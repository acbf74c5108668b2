// srcip.so - LD_PRELOAD shim for wrk used by bench/rpc.sh.
//
// Why: monerod closes every RPC connection beyond 25 from one private IP
// (--rpc-max-connections-per-private-ip) and gonerod copies that limit. wrk
// opens all its connections from 127.0.0.1, so at 64 connections 39 of them
// would be accepted, closed, reopened, ... in a tight loop, and the numbers
// would measure that churn instead of request handling. A real node with 64
// clients sees them from many addresses, so this shim binds each socket wrk
// connects to a loopback destination to a source address from 127.0.0.2 ..
// 127.0.0.(1+N), round robin (N from GONERO_BENCH_SRC_IPS; 0 or unset: off).
// Every 127/8 address is local on Linux's lo, so no setup is needed.
//
// Build: gcc -shared -fPIC -O2 -o srcip.so srcip.c -ldl
#define _GNU_SOURCE
#include <arpa/inet.h>
#include <dlfcn.h>
#include <errno.h>
#include <netinet/in.h>
#include <stdlib.h>
#include <sys/socket.h>

static int (*real_connect)(int, const struct sockaddr *, socklen_t);
static unsigned spread;
static unsigned counter;

__attribute__((constructor)) static void srcip_init(void) {
	const char *s = getenv("GONERO_BENCH_SRC_IPS");
	real_connect = (int (*)(int, const struct sockaddr *, socklen_t))dlsym(RTLD_NEXT, "connect");
	spread = s ? (unsigned)strtoul(s, NULL, 10) : 0;
	if (spread > 250) spread = 250;
}

int connect(int fd, const struct sockaddr *addr, socklen_t len) {
	if (spread > 0 && addr != NULL && addr->sa_family == AF_INET && len >= sizeof(struct sockaddr_in)) {
		const struct sockaddr_in *dst = (const struct sockaddr_in *)addr;
		if ((ntohl(dst->sin_addr.s_addr) >> 24) == 127) {
			struct sockaddr_in src = {0};
			unsigned k = __atomic_fetch_add(&counter, 1, __ATOMIC_RELAXED) % spread;
			src.sin_family = AF_INET;
			src.sin_addr.s_addr = htonl(0x7f000002u + k); // 127.0.0.2 + k, port chosen by the kernel
			int saved = errno;
			// Best effort: a socket that is already bound keeps its address (bind fails, connect goes on).
			(void)bind(fd, (const struct sockaddr *)&src, sizeof src);
			errno = saved;
		}
	}
	return real_connect(fd, addr, len);
}
