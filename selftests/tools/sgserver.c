// SPDX-License-Identifier: GPL-2.0
/*
 * sgserver.c - the project's request/response test server: TCP on loopback,
 * a CPU-work service time, two threading shapes (epoll workers or one thread
 * per connection).
 *
 * Usage: sgserver [-p PORT] [-t THREADS] [-m epoll|thread] [-s SERVICE_US]
 *                 [-w ITERS_PER_US] [-d SECONDS] [--calibrate]
 *
 * Prints "ready PORT" on stdout once listening; a summary on stderr at exit
 * (SIGTERM, SIGINT or after -d seconds).  See Documentation/workload.rst.
 */
#include <arpa/inet.h>
#include <fcntl.h>
#include <getopt.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <stdbool.h>
#include <sys/epoll.h>
#include <sys/eventfd.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/uio.h>
#include <unistd.h>
#include "sgwire.h"

#define SGS_BACKLOG		1024	/* listen backlog: a burst of client connects */
#define SGS_MAX_THREADS		1024	/* -t limit, either mode */
#define SGS_THREAD_CONNS	256	/* -m thread default: simultaneous connections */
#define SGS_MAX_SERVICE_US	10000000u	/* 10 s: longer is a typo */
#define SGS_EPOLL_EVENTS	64	/* events per epoll_wait: one batch of ready sockets */
/*
 * Per-connection buffers.  The read size is capped by the free space in the
 * write buffer, so the responses to whatever was read always fit (a request
 * and its response are both SGW_MSG_SIZE); a client that stops reading stops
 * being read (back pressure) instead of growing the server's memory.
 */
#define SGS_RBUF		(16 * 1024)	/* 512 pipelined requests per read */
#define SGS_WBUF		(64 * 1024)
#define SGS_THREAD_STACK	(256 * 1024)	/* conn threads: small frames only */

static const char *sgs_prog = "sgserver";

static struct sgs_opts {
	int port;
	int threads;
	bool thread_mode;
	unsigned int service_us;
	double iters_per_us;
	double duration_s;
} opt = { .port = 0, .threads = 0, .service_us = 0 };

static int stop_fd = -1;		/* eventfd: readable once stopping */
static volatile sig_atomic_t stopping;
static uint64_t svc_default_iters;

/*
 * Checked between requests, so that a stop is not held up by a backlog of
 * pipelined requests (up to 512 per read, each SERVICE_US long).
 */
static bool sgs_stopping(void)
{
	return __atomic_load_n(&stopping, __ATOMIC_RELAXED);
}

/* ---- service ---------------------------------------------------------------- */

/*
 * sgs_serve - turn one request (at @in, maybe unaligned) into its response.
 * Returns false on a malformed request: the caller drops the connection.
 */
static bool sgs_serve(const void *in, struct sgw_msg *resp)
{
	struct sgw_msg req;
	uint64_t iters = svc_default_iters;
	uint32_t svc = opt.service_us;

	memcpy(&req, in, sizeof(req));
	if (req.magic != SGW_REQ_MAGIC)
		return false;
	if (req.service_us != SGW_SVC_DEFAULT) {
		svc = req.service_us > SGS_MAX_SERVICE_US ? SGS_MAX_SERVICE_US : req.service_us;
		iters = (uint64_t)(svc * opt.iters_per_us);
	}
	sgw_spin(iters);
	*resp = req;
	resp->magic = SGW_RESP_MAGIC;
	resp->service_us = svc;
	return true;
}

struct sgs_stats {
	uint64_t requests;
	uint64_t conns;
	uint64_t errors;	/* malformed requests, socket errors */
};

static void sgs_stats_add(struct sgs_stats *to, const struct sgs_stats *from)
{
	to->requests += from->requests;
	to->conns += from->conns;
	to->errors += from->errors;
}

/* ---- epoll mode: acceptor + workers, each with its own epoll set ------------- */

struct sgs_worker;

struct sgs_conn {
	int fd;
	struct sgs_worker *w;
	struct sgs_conn *prev, *next;	/* the worker's list, under w->lock */
	uint32_t events;		/* current epoll interest */
	size_t rlen;			/* bytes of a partial request in rbuf */
	size_t woff, wlen;		/* unsent responses: wbuf[woff, wlen) */
	char rbuf[SGS_RBUF];
	char wbuf[SGS_WBUF];
};

struct sgs_worker {
	int id;
	int epfd;
	pthread_t thread;
	pthread_mutex_t lock;		/* conns list: acceptor adds, worker removes */
	struct sgs_conn *conns;
	struct sgs_stats st;		/* written by the worker only */
};

static void sgs_conn_close(struct sgs_conn *c)
{
	struct sgs_worker *w = c->w;

	epoll_ctl(w->epfd, EPOLL_CTL_DEL, c->fd, NULL);
	close(c->fd);
	pthread_mutex_lock(&w->lock);
	if (c->prev)
		c->prev->next = c->next;
	else
		w->conns = c->next;
	if (c->next)
		c->next->prev = c->prev;
	pthread_mutex_unlock(&w->lock);
	free(c);
}

static int sgs_conn_interest(struct sgs_conn *c, uint32_t events)
{
	struct epoll_event ev = { .events = events, .data.ptr = c };

	if (c->events == events)
		return 0;
	c->events = events;
	return epoll_ctl(c->w->epfd, EPOLL_CTL_MOD, c->fd, &ev);
}

/* Send buffered responses; 0 when all sent or the socket is full, -1 on error. */
static int sgs_conn_flush(struct sgs_conn *c)
{
	while (c->woff < c->wlen) {
		struct iovec iov = { c->wbuf + c->woff, c->wlen - c->woff };
		struct msghdr mh = { .msg_iov = &iov, .msg_iovlen = 1 };
		ssize_t n = sendmsg(c->fd, &mh, MSG_NOSIGNAL);

		if (n < 0) {
			if (errno == EINTR)
				continue;
			return errno == EAGAIN || errno == EWOULDBLOCK ? 0 : -1;
		}
		c->woff += n;
	}
	c->woff = c->wlen = 0;
	return 0;
}

/*
 * Answer one request: one sendmsg() per response (so the send family counts
 * requests, not batches), unless earlier responses still wait in wbuf, in
 * which case the response queues behind them to keep the order.
 */
static int sgs_conn_reply(struct sgs_conn *c, const struct sgw_msg *resp)
{
	if (c->wlen == 0) {
		struct iovec iov = { (void *)resp, sizeof(*resp) };
		struct msghdr mh = { .msg_iov = &iov, .msg_iovlen = 1 };
		ssize_t n;

		do
			n = sendmsg(c->fd, &mh, MSG_NOSIGNAL);
		while (n < 0 && errno == EINTR);
		if (n == sizeof(*resp))
			return 0;
		if (n < 0) {
			if (errno != EAGAIN && errno != EWOULDBLOCK)
				return -1;
			n = 0;
		}
		memcpy(c->wbuf, (const char *)resp + n, sizeof(*resp) - n);
		c->wlen = sizeof(*resp) - n;
		return 0;
	}
	/* fits: reads are capped by the free space of wbuf */
	memcpy(c->wbuf + c->wlen, resp, sizeof(*resp));
	c->wlen += sizeof(*resp);
	return 0;
}

static int sgs_conn_readable(struct sgs_conn *c)
{
	size_t room, pos = 0;
	ssize_t n;

	if (c->woff && c->woff == c->wlen)
		c->woff = c->wlen = 0;
	if (c->woff) {	/* compact so the free space is at the end */
		memmove(c->wbuf, c->wbuf + c->woff, c->wlen - c->woff);
		c->wlen -= c->woff;
		c->woff = 0;
	}
	room = SGS_RBUF - c->rlen;
	if (room > SGS_WBUF - c->wlen)
		room = SGS_WBUF - c->wlen;
	if (room < SGW_MSG_SIZE)	/* wait for the client to read its responses */
		return sgs_conn_interest(c, EPOLLOUT);

	n = read(c->fd, c->rbuf + c->rlen, room);
	if (n == 0)
		return -1;
	if (n < 0)
		return errno == EAGAIN || errno == EWOULDBLOCK || errno == EINTR ? 0 : -1;
	c->rlen += n;

	while (c->rlen - pos >= SGW_MSG_SIZE && !sgs_stopping()) {
		struct sgw_msg resp;

		if (!sgs_serve(c->rbuf + pos, &resp)) {
			c->w->st.errors++;
			return -1;
		}
		if (sgs_conn_reply(c, &resp))
			return -1;
		c->w->st.requests++;
		pos += SGW_MSG_SIZE;
	}
	c->rlen -= pos;
	memmove(c->rbuf, c->rbuf + pos, c->rlen);
	return sgs_conn_interest(c, c->wlen ? EPOLLIN | EPOLLOUT : EPOLLIN);
}

static void *sgs_worker_main(void *arg)
{
	struct sgs_worker *w = arg;
	struct epoll_event ev[SGS_EPOLL_EVENTS];
	char name[16];

	snprintf(name, sizeof(name), "sgs-worker-%d", w->id);
	pthread_setname_np(pthread_self(), name);
	for (;;) {
		int n = epoll_wait(w->epfd, ev, SGS_EPOLL_EVENTS, -1);

		if (n < 0) {
			if (errno == EINTR)
				continue;
			perror("sgserver: epoll_wait");
			break;
		}
		for (int i = 0; i < n; i++) {
			struct sgs_conn *c = ev[i].data.ptr;
			int err = 0;

			if (!c || sgs_stopping())	/* stop_fd */
				return NULL;
			if (ev[i].events & EPOLLOUT) {
				err = sgs_conn_flush(c);
				if (!err && c->wlen == 0)
					err = sgs_conn_interest(c, EPOLLIN);
			}
			if (!err && ev[i].events & (EPOLLIN | EPOLLHUP | EPOLLERR))
				err = sgs_conn_readable(c);
			if (err)
				sgs_conn_close(c);
		}
	}
	return NULL;
}

/* ---- thread mode: one thread per connection, blocking I/O --------------------- */

struct sgs_cthread {
	int fd;
	pthread_t thread;
	bool done;			/* __atomic: set by the thread as it ends */
	struct sgs_cthread *next;
	struct sgs_stats st;
};

static int sgs_send_all(int fd, const void *buf, size_t len)
{
	while (len) {
		ssize_t n = send(fd, buf, len, MSG_NOSIGNAL);

		if (n < 0) {
			if (errno == EINTR)
				continue;
			return -1;
		}
		buf = (const char *)buf + n;
		len -= n;
	}
	return 0;
}

static void *sgs_cthread_main(void *arg)
{
	struct sgs_cthread *t = arg;
	char buf[SGS_RBUF];
	size_t len = 0;

	pthread_setname_np(pthread_self(), "sgs-conn");
	for (;;) {
		struct pollfd pfd[2] = { { t->fd, POLLIN, 0 }, { stop_fd, POLLIN, 0 } };
		size_t pos = 0;
		ssize_t n;

		/* poll() first, so the wait family sees this shape block too */
		if (poll(pfd, 2, -1) < 0) {
			if (errno == EINTR)
				continue;
			break;
		}
		if (pfd[1].revents)
			break;
		n = recv(t->fd, buf + len, sizeof(buf) - len, 0);
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			break;
		len += n;
		for (; len - pos >= SGW_MSG_SIZE && !sgs_stopping(); pos += SGW_MSG_SIZE) {
			struct sgw_msg resp;

			if (!sgs_serve(buf + pos, &resp)) {
				t->st.errors++;
				goto out;
			}
			if (sgs_send_all(t->fd, &resp, sizeof(resp)))
				goto out;
			t->st.requests++;
		}
		len -= pos;
		memmove(buf, buf + pos, len);
	}
out:
	__atomic_store_n(&t->done, true, __ATOMIC_RELEASE);
	return NULL;
}

/* ---- common: listen, accept, stop ---------------------------------------------- */

static void sgs_on_signal(int sig)
{
	uint64_t one = 1;
	ssize_t r;

	stopping = 1;
	r = write(stop_fd, &one, sizeof(one));	/* async-signal-safe */
	(void)r;
}

static int sgs_listen(int *port)
{
	struct sockaddr_in sa = { .sin_family = AF_INET, .sin_port = htons(*port),
				  .sin_addr.s_addr = htonl(INADDR_LOOPBACK) };
	socklen_t len = sizeof(sa);
	int one = 1, fd;

	fd = socket(AF_INET, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
	if (fd < 0)
		return -1;
	setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one));
	if (bind(fd, (struct sockaddr *)&sa, sizeof(sa)) || listen(fd, SGS_BACKLOG) ||
	    getsockname(fd, (struct sockaddr *)&sa, &len)) {
		close(fd);
		return -1;
	}
	*port = ntohs(sa.sin_port);
	return fd;
}

/*
 * Wait for a connection, a stop request or the -d deadline.  Returns the new
 * socket, or -1 to stop.
 */
static int sgs_accept(int lfd, uint64_t deadline, struct sgs_stats *st)
{
	while (!stopping) {
		struct pollfd pfd[2] = { { lfd, POLLIN, 0 }, { stop_fd, POLLIN, 0 } };
		int timeout = -1, one = 1, fd;

		if (deadline) {
			uint64_t now = sgw_now_ns();

			if (now >= deadline)
				return -1;
			timeout = (deadline - now + 999999) / 1000000;
		}
		if (poll(pfd, 2, timeout) < 0 && errno != EINTR)
			return -1;
		if (pfd[1].revents)
			return -1;
		if (!(pfd[0].revents & POLLIN))
			continue;
		fd = accept4(lfd, NULL, NULL, SOCK_CLOEXEC);
		if (fd < 0) {
			if (errno == EMFILE || errno == ENFILE || errno == ENOBUFS ||
			    errno == ENOMEM)
				usleep(10000);	/* out of resources: do not spin on it */
			if (errno != EINTR && errno != EAGAIN && errno != ECONNABORTED)
				st->errors++;
			continue;
		}
		/* small messages: no Nagle, or each response waits for an ACK */
		setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one));
		st->conns++;
		return fd;
	}
	return -1;
}

static int sgs_run_epoll(int lfd, uint64_t deadline, struct sgs_stats *total)
{
	struct sgs_worker *w;
	struct epoll_event ev = { .events = EPOLLIN, .data.ptr = NULL };
	struct sgs_stats acc = { 0 };
	int i, fd, next = 0, started = 0, ret = -1;

	w = calloc(opt.threads, sizeof(*w));
	if (!w)
		return -1;
	for (i = 0; i < opt.threads; i++) {
		w[i].id = i;
		pthread_mutex_init(&w[i].lock, NULL);
		w[i].epfd = epoll_create1(EPOLL_CLOEXEC);
		if (w[i].epfd < 0 || epoll_ctl(w[i].epfd, EPOLL_CTL_ADD, stop_fd, &ev))
			goto err_workers;
		if (pthread_create(&w[i].thread, NULL, sgs_worker_main, &w[i]))
			goto err_workers;
		started++;
	}
	printf("ready %d\n", opt.port);
	fflush(stdout);

	while ((fd = sgs_accept(lfd, deadline, &acc)) >= 0) {
		struct sgs_conn *c = malloc(sizeof(*c));
		struct sgs_worker *to = &w[next];

		next = (next + 1) % opt.threads;
		if (!c || fcntl(fd, F_SETFL, O_NONBLOCK)) {
			free(c);
			close(fd);
			acc.errors++;
			continue;
		}
		c->fd = fd;
		c->w = to;
		c->events = EPOLLIN;
		c->rlen = c->woff = c->wlen = 0;
		c->prev = NULL;
		pthread_mutex_lock(&to->lock);
		c->next = to->conns;
		if (to->conns)
			to->conns->prev = c;
		to->conns = c;
		pthread_mutex_unlock(&to->lock);
		/* epoll_ctl is safe against the worker's concurrent epoll_wait */
		ev.events = EPOLLIN;
		ev.data.ptr = c;
		if (epoll_ctl(to->epfd, EPOLL_CTL_ADD, fd, &ev)) {
			acc.errors++;
			sgs_conn_close(c);
		}
	}
	ret = 0;

err_workers:
	sgs_on_signal(0);	/* wakes every worker through stop_fd */
	for (i = 0; i < started; i++)
		pthread_join(w[i].thread, NULL);
	for (i = 0; i < opt.threads; i++) {
		while (w[i].conns)
			sgs_conn_close(w[i].conns);
		if (w[i].epfd >= 0)
			close(w[i].epfd);
		sgs_stats_add(total, &w[i].st);
	}
	sgs_stats_add(total, &acc);
	free(w);
	return ret;
}

static void sgs_reap(struct sgs_cthread **list, struct sgs_stats *total, bool all, int *live)
{
	struct sgs_cthread **pp = list;

	while (*pp) {
		struct sgs_cthread *t = *pp;

		if (!all && !__atomic_load_n(&t->done, __ATOMIC_ACQUIRE)) {
			pp = &t->next;
			continue;
		}
		pthread_join(t->thread, NULL);
		close(t->fd);
		sgs_stats_add(total, &t->st);
		*pp = t->next;
		free(t);
		(*live)--;
	}
}

static int sgs_run_threads(int lfd, uint64_t deadline, struct sgs_stats *total)
{
	struct sgs_cthread *list = NULL;
	struct sgs_stats acc = { 0 };
	pthread_attr_t attr;
	int fd, live = 0;

	pthread_attr_init(&attr);
	pthread_attr_setstacksize(&attr, SGS_THREAD_STACK);
	printf("ready %d\n", opt.port);
	fflush(stdout);

	while ((fd = sgs_accept(lfd, deadline, &acc)) >= 0) {
		struct sgs_cthread *t;

		sgs_reap(&list, total, false, &live);
		t = live < opt.threads ? calloc(1, sizeof(*t)) : NULL;
		if (!t) {
			if (!acc.errors)	/* once: the summary has the count */
				fprintf(stderr, "%s: refusing connections: %d threads busy\n",
					sgs_prog, live);
			close(fd);
			acc.errors++;
			continue;
		}
		t->fd = fd;
		if (pthread_create(&t->thread, &attr, sgs_cthread_main, t)) {
			close(fd);
			free(t);
			acc.errors++;
			continue;
		}
		t->next = list;
		list = t;
		live++;
	}
	sgs_on_signal(0);
	/* unblock threads stuck in send() to a client that stopped reading */
	for (struct sgs_cthread *t = list; t; t = t->next)
		shutdown(t->fd, SHUT_RDWR);
	sgs_reap(&list, total, true, &live);
	sgs_stats_add(total, &acc);
	pthread_attr_destroy(&attr);
	return 0;
}

/* ---- main ------------------------------------------------------------------------ */

static void usage(FILE *f)
{
	fprintf(f,
		"Usage: %s [-p PORT] [-t THREADS] [-m epoll|thread] [-s SERVICE_US]\n"
		"          [-w ITERS_PER_US] [-d SECONDS] [--calibrate]\n"
		"  -p PORT        TCP port on 127.0.0.1 (default 0: any free port)\n"
		"  -t THREADS     epoll: worker threads (default: online CPUs);\n"
		"                 thread: most simultaneous connections (default %d)\n"
		"  -m MODE        epoll (acceptor + epoll workers, default) or thread\n"
		"                 (one blocking thread per connection)\n"
		"  -s SERVICE_US  CPU work per request, in microseconds at calibration speed\n"
		"  -w ITERS       spin iterations per microsecond (from --calibrate)\n"
		"  -d SECONDS     exit after this long (default: on SIGTERM/SIGINT)\n"
		"  --calibrate    print 'iters_per_us N' and exit\n",
		sgs_prog, SGS_THREAD_CONNS);
}

static int bad_arg(const char *what, const char *val)
{
	fprintf(stderr, "%s: error: invalid %s '%s'\n", sgs_prog, what, val);
	usage(stderr);
	return 2;
}

int main(int argc, char **argv)
{
	static const struct option lopts[] = {
		{ "calibrate", no_argument, NULL, 'C' },
		{ "help", no_argument, NULL, 'h' },
		{ 0 }
	};
	struct sigaction sa = { .sa_handler = sgs_on_signal };
	struct sgs_stats st = { 0 };
	uint64_t t0, deadline = 0;
	unsigned long v;
	int c, lfd, err;

	while ((c = getopt_long(argc, argv, "p:t:m:s:w:d:h", lopts, NULL)) != -1) {
		switch (c) {
		case 'p':
			if (sgw_parse_ulong(optarg, 0, 65535, &v))
				return bad_arg("port", optarg);
			opt.port = v;
			break;
		case 't':
			if (sgw_parse_ulong(optarg, 1, SGS_MAX_THREADS, &v))
				return bad_arg("thread count", optarg);
			opt.threads = v;
			break;
		case 'm':
			if (!strcmp(optarg, "thread"))
				opt.thread_mode = true;
			else if (strcmp(optarg, "epoll"))
				return bad_arg("mode", optarg);
			break;
		case 's':
			if (sgw_parse_ulong(optarg, 0, SGS_MAX_SERVICE_US, &v))
				return bad_arg("service time", optarg);
			opt.service_us = v;
			break;
		case 'w':
			if (sgw_parse_double(optarg, 0.001, 1e9, &opt.iters_per_us))
				return bad_arg("iterations per microsecond", optarg);
			break;
		case 'd':
			if (sgw_parse_double(optarg, 0.001, 1e7, &opt.duration_s))
				return bad_arg("duration", optarg);
			break;
		case 'C':
			printf("iters_per_us %.0f\n", fmax(1.0, round(sgw_calibrate())));
			return 0;
		case 'h':
			usage(stdout);
			return 0;
		default:
			usage(stderr);
			return 2;
		}
	}
	if (optind < argc)
		return bad_arg("argument", argv[optind]);
	if (!opt.threads) {
		long n = sysconf(_SC_NPROCESSORS_ONLN);

		opt.threads = opt.thread_mode ? SGS_THREAD_CONNS : (n > 0 ? n : 1);
	}
	if (!opt.iters_per_us) {
		opt.iters_per_us = fmax(1.0, round(sgw_calibrate()));
		fprintf(stderr, "%s: iters_per_us %.0f\n", sgs_prog, opt.iters_per_us);
	}
	svc_default_iters = (uint64_t)(opt.service_us * opt.iters_per_us);

	sgw_raise_nofile();
	stop_fd = eventfd(0, EFD_CLOEXEC);
	if (stop_fd < 0) {
		perror("sgserver: eventfd");
		return 1;
	}
	sigaction(SIGTERM, &sa, NULL);
	sigaction(SIGINT, &sa, NULL);
	signal(SIGPIPE, SIG_IGN);

	lfd = sgs_listen(&opt.port);
	if (lfd < 0) {
		fprintf(stderr, "%s: error: cannot listen on 127.0.0.1:%d: %s\n", sgs_prog,
			opt.port, strerror(errno));
		return 1;
	}
	t0 = sgw_now_ns();
	if (opt.duration_s)
		deadline = t0 + (uint64_t)(opt.duration_s * 1e9);
	err = opt.thread_mode ? sgs_run_threads(lfd, deadline, &st)
			      : sgs_run_epoll(lfd, deadline, &st);
	close(lfd);
	fprintf(stderr, "%s: mode=%s threads=%d service_us=%u iters_per_us=%.0f conns=%llu "
		"requests=%llu errors=%llu elapsed_s=%.3f\n", sgs_prog,
		opt.thread_mode ? "thread" : "epoll", opt.threads, opt.service_us,
		opt.iters_per_us, (unsigned long long)st.conns,
		(unsigned long long)st.requests, (unsigned long long)st.errors,
		(sgw_now_ns() - t0) / 1e9);
	if (err)
		fprintf(stderr, "%s: error: cannot start the workers\n", sgs_prog);
	return err ? 1 : 0;
}
