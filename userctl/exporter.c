// SPDX-License-Identifier: GPL-2.0
/*
 * exporter.c - slackctl exporter --listen ADDR:PORT: serves the Prometheus
 * exposition (prom.c) at http://ADDR:PORT/metrics, on libmicrohttpd.
 *
 * slackctl binds the socket itself (so that "address in use" is said as
 * such and port 0 picks a free port, printed on the first line) and hands
 * it to libmicrohttpd, run from slackctl's own loop (MHD_run_wait: no
 * thread of the library's): scrapes are served one at a time, each reading
 * the pinned maps afresh.  SIGINT or SIGTERM stops it.
 *
 * libmicrohttpd is opened at run time (dlopen of libmicrohttpd.so.12,
 * Debian's libmicrohttpd12), not linked: slackctl is a static binary (it
 * runs in the test guest's busybox initramfs), and Debian's static
 * libmicrohttpd.a needs GnuTLS, whose static build needs p11-kit, of which
 * Debian ships no static library.  So every other command keeps working
 * without it, and the exporter says when it is missing.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <dlfcn.h>
#include <netdb.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>
#include <microhttpd.h>
#include "slackctl.h"

/* the listen backlog: a few scrapers at once */
#define SC_EXPORTER_BACKLOG	16
/* a scrape that sends nothing for this long is dropped (seconds) */
#define SC_EXPORTER_TIMEOUT_S	10

/* the libmicrohttpd entry points the exporter uses, from dlopen() */
static struct {
	struct MHD_Daemon *(*start_daemon)(unsigned int flags, uint16_t port, MHD_AcceptPolicyCallback apc,
					   void *apc_cls, MHD_AccessHandlerCallback dh, void *dh_cls, ...);
	void (*stop_daemon)(struct MHD_Daemon *d);
	struct MHD_Response *(*create_response_from_buffer)(size_t size, void *buffer,
							    enum MHD_ResponseMemoryMode mode);
	enum MHD_Result (*add_response_header)(struct MHD_Response *r, const char *header,
					       const char *content);
	enum MHD_Result (*queue_response)(struct MHD_Connection *c, unsigned int status_code,
					  struct MHD_Response *r);
	void (*destroy_response)(struct MHD_Response *r);
	enum MHD_Result (*run_wait)(struct MHD_Daemon *d, int32_t millisec);
} mhd;

#define SC_MHD_LIB	"libmicrohttpd.so.12"

static int mhd_open(void)
{
	void *h = dlopen(SC_MHD_LIB, RTLD_NOW | RTLD_LOCAL);

	if (!h)
		return sc_err("exporter: cannot open %s (Debian: apt-get install libmicrohttpd12)",
			      SC_MHD_LIB);
	if (!(*(void **)&mhd.start_daemon = dlsym(h, "MHD_start_daemon")) ||
	    !(*(void **)&mhd.stop_daemon = dlsym(h, "MHD_stop_daemon")) ||
	    !(*(void **)&mhd.create_response_from_buffer = dlsym(h, "MHD_create_response_from_buffer")) ||
	    !(*(void **)&mhd.add_response_header = dlsym(h, "MHD_add_response_header")) ||
	    !(*(void **)&mhd.queue_response = dlsym(h, "MHD_queue_response")) ||
	    !(*(void **)&mhd.destroy_response = dlsym(h, "MHD_destroy_response")) ||
	    !(*(void **)&mhd.run_wait = dlsym(h, "MHD_run_wait")))
		return sc_err("exporter: %s lacks %s", SC_MHD_LIB, dlerror());
	return 0;
}

static enum MHD_Result answer(void *cls __maybe_unused, struct MHD_Connection *c,
			      const char *url, const char *method,
			      const char *version __maybe_unused, const char *data __maybe_unused,
			      size_t *data_len __maybe_unused, void **state __maybe_unused)
{
	static const char not_found[] = "slackctl exporter: the metrics are at /metrics\n";
	static const char failed[] = "slackctl exporter: cannot read slackgov's maps (not loaded?)\n";
	struct MHD_Response *r;
	enum MHD_Result ret;
	unsigned int code = MHD_HTTP_OK;
	char *buf = NULL;
	size_t len = 0;

	if (strcmp(method, "GET") && strcmp(method, "HEAD"))
		return MHD_NO;		/* closes the connection */
	if (strcmp(url, "/metrics")) {
		code = MHD_HTTP_NOT_FOUND;
		r = mhd.create_response_from_buffer(sizeof(not_found) - 1, (void *)not_found,
						    MHD_RESPMEM_PERSISTENT);
	} else if (!(buf = sc_prom_scrape(&len))) {
		code = MHD_HTTP_SERVICE_UNAVAILABLE;
		r = mhd.create_response_from_buffer(sizeof(failed) - 1, (void *)failed,
						    MHD_RESPMEM_PERSISTENT);
	} else {
		/* copied: the library frees with its own allocator */
		r = mhd.create_response_from_buffer(len, buf, MHD_RESPMEM_MUST_COPY);
		free(buf);
		if (r)
			mhd.add_response_header(r, MHD_HTTP_HEADER_CONTENT_TYPE,
						"text/plain; version=0.0.4; charset=utf-8");
	}
	if (!r)
		return MHD_NO;
	ret = mhd.queue_response(c, code, r);
	mhd.destroy_response(r);
	return ret;
}

/* a port, 0 (any free one) to 65535: digits only (h1's sc_parse_num once it lands) */
static int sc_parse_port(const char *arg, unsigned long long *port)
{
	unsigned long long v = 0;
	const char *p = arg;

	for (; *p >= '0' && *p <= '9' && v <= 65535; p++)
		v = v * 10 + (*p - '0');
	if (!*arg || *p || v > 65535)
		return sc_err("exporter: bad port '%s': 0 to 65535", arg);
	*port = v;
	return 0;
}

/* ADDR:PORT or [ADDR6]:PORT, numeric; a bound, listening socket or -1 */
static int listen_on(const char *arg, char *shown, size_t len)
{
	struct addrinfo hints = { .ai_flags = AI_NUMERICHOST | AI_NUMERICSERV | AI_PASSIVE,
				  .ai_socktype = SOCK_STREAM };
	/*
	 * zeroed: the analyzer does not see getsockname() write through
	 * glibc's transparent-union address argument
	 */
	union {
		struct sockaddr_storage ss;
		struct sockaddr sa;
		struct sockaddr_in in;
		struct sockaddr_in6 in6;
	} ss = {};
	socklen_t sl = sizeof(ss);
	struct addrinfo *ai;
	char host[256], *port, *p;
	char h[INET6_ADDRSTRLEN];
	unsigned long long pn;
	int fd, one = 1, err;

	if (snprintf(host, sizeof(host), "%s", arg) >= (int)sizeof(host) || !(port = strrchr(host, ':')))
		return sc_err("exporter: --listen takes ADDR:PORT (127.0.0.1:9560)");
	*port++ = 0;
	p = host;
	if (*p == '[' && p[strlen(p) - 1] == ']') {
		p[strlen(p) - 1] = 0;
		p++;
	}
	if (sc_parse_port(port, &pn))
		return -1;
	err = getaddrinfo(p, port, &hints, &ai);
	if (err)
		return sc_err("exporter: bad address '%s': %s", p, gai_strerror(err));
	fd = socket(ai->ai_family, SOCK_STREAM | SOCK_CLOEXEC, 0);
	if (fd < 0 || setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one)) ||
	    bind(fd, ai->ai_addr, ai->ai_addrlen) || listen(fd, SC_EXPORTER_BACKLOG) ||
	    getsockname(fd, &ss.sa, &sl)) {
		err = errno;
		freeaddrinfo(ai);
		if (fd >= 0)
			close(fd);
		return sc_err("exporter: cannot listen on %s: %s", arg, strerror(err));
	}
	freeaddrinfo(ai);
	if (ss.sa.sa_family == AF_INET6)
		snprintf(shown, len, "[%s]:%u", inet_ntop(AF_INET6, &ss.in6.sin6_addr, h, sizeof(h)),
			 ntohs(ss.in6.sin6_port));
	else
		snprintf(shown, len, "%s:%u", inet_ntop(AF_INET, &ss.in.sin_addr, h, sizeof(h)),
			 ntohs(ss.in.sin_port));
	return fd;
}

static volatile sig_atomic_t stop;

static void on_signal(int sig __maybe_unused)
{
	stop = 1;
}

int do_exporter(int argc, char **argv)
{
	struct sigaction sa = { .sa_handler = on_signal };
	struct MHD_Daemon *d;
	const char *listen_arg = NULL;
	char shown[300];
	int fd;

	while (argc) {
		if (is_prefix(argv[0], "--listen") && strlen(argv[0]) > 2 && argc > 1) {
			listen_arg = argv[1];
			NEXT_ARG();
		} else {
			return sc_err("usage: slackctl exporter --listen ADDR:PORT");
		}
		NEXT_ARG();
	}
	if (!listen_arg)
		return sc_err("usage: slackctl exporter --listen ADDR:PORT");
	if (sc_check_env(SC_NEED_PINS) || mhd_open())
		return -1;
	if (sc_need_loaded())	/* not loaded, incomplete, or root's */
		return -1;
	fd = listen_on(listen_arg, shown, sizeof(shown));
	if (fd < 0)
		return -1;
	d = mhd.start_daemon(MHD_USE_ERROR_LOG, 0, NULL, NULL, answer, NULL,
			     MHD_OPTION_LISTEN_SOCKET, fd,
			     MHD_OPTION_CONNECTION_TIMEOUT, (unsigned int)SC_EXPORTER_TIMEOUT_S,
			     MHD_OPTION_END);
	if (!d) {
		close(fd);
		return sc_err("exporter: libmicrohttpd did not start");
	}
	if (json_wtr) {
		jsonw_start_object(json_wtr);
		jsonw_string_field(json_wtr, "listen", shown);
		jsonw_end_object(json_wtr);
	} else {
		printf("serving http://%s/metrics\n", shown);
	}
	fflush(stdout);
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
	signal(SIGPIPE, SIG_IGN);
	/* a signal interrupts the wait; the second is the longest it lasts */
	while (!stop)
		mhd.run_wait(d, 1000);
	mhd.stop_daemon(d);
	close(fd);
	return 0;
}
