/*
 * tlsload: keep-alive HTTPS GETs for Benchmarks/run's HTTPS scenarios.
 *
 * Opens N connections (one thread each), through a proxy's CONNECT or straight to the origin,
 * completes TLS on all of them (the certificate verified against --cafile for the authority's
 * host name), then sends one GET after another on each (keep-alive, no pipelining) for --duration
 * seconds, checking every answer's status and body length. wrk cannot go through CONNECT and curl
 * spends more per request than the servers measured here; this client spends a few microseconds a
 * request, so the origin-direct rate shows its ceiling.
 *
 * Usage: tlsload --via IP:PORT [--tunnel] --authority HOST:PORT --path PATH --cafile FILE
 *                [--connections N] [--duration S] [--bytes N]
 *   --via        the address connected to: the proxy (with --tunnel) or the origin
 *   --tunnel     send `CONNECT authority` first and expect 200
 *   --bytes      the body length every answer must have
 * Prints one line: BENCH_JSON {...} (requests, rps, latency percentiles, errors, the client's own
 * CPU time while it measured, the first answer's cache header).
 */
#define _GNU_SOURCE
#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <openssl/err.h>
#include <openssl/ssl.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/time.h>
#include <time.h>
#include <unistd.h>

static const char *via_ip, *authority, *path, *cafile;
static int via_port, tunnel, connections = 1;
static double duration = 5;
static long expected_bytes = -1;
static SSL_CTX *ctx;
static pthread_barrier_t ready;
static double start_time;
static volatile double deadline;
static char host[256];
static char cache_header[256];
static pthread_mutex_t header_lock = PTHREAD_MUTEX_INITIALIZER;

/* CPU time of this process (all its threads) so far, to show whether the client kept up. */
static double cpu_seconds(void) {
  struct rusage usage;
  getrusage(RUSAGE_SELF, &usage);
  return usage.ru_utime.tv_sec + usage.ru_utime.tv_usec / 1e6 + usage.ru_stime.tv_sec + usage.ru_stime.tv_usec / 1e6;
}

static double now(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return t.tv_sec + t.tv_nsec / 1e9;
}

typedef struct {
  SSL *ssl;
  int fd;
  char buf[1 << 17];
  size_t start, end;
} reader;

/* More bytes into the buffer, from TLS or (before TLS) the socket; 0 at end or error. */
static int fill(reader *r) {
  if (r->start == r->end) r->start = r->end = 0;
  if (r->end == sizeof r->buf) {
    if (r->start == 0) return 0; /* a line longer than the buffer */
    memmove(r->buf, r->buf + r->start, r->end - r->start);
    r->end -= r->start;
    r->start = 0;
  }
  int n = r->ssl ? SSL_read(r->ssl, r->buf + r->end, (int)(sizeof r->buf - r->end))
                 : (int)recv(r->fd, r->buf + r->end, sizeof r->buf - r->end, 0);
  if (n <= 0) return 0;
  r->end += (size_t)n;
  return 1;
}

/* The next line without its CRLF, in `line` (truncated to size); 0 at end or error. */
static int read_line(reader *r, char *line, size_t size) {
  for (;;) {
    char *nl = memchr(r->buf + r->start, '\n', r->end - r->start);
    if (nl) {
      size_t len = (size_t)(nl - (r->buf + r->start));
      size_t keep = len > 0 && r->buf[r->start + len - 1] == '\r' ? len - 1 : len;
      if (keep >= size) keep = size - 1;
      memcpy(line, r->buf + r->start, keep);
      line[keep] = 0;
      r->start += len + 1;
      return 1;
    }
    if (!fill(r)) return 0;
  }
}

static int skip(reader *r, long n) {
  while (n > 0) {
    if (r->start == r->end && !fill(r)) return 0;
    size_t have = r->end - r->start;
    size_t take = (size_t)n < have ? (size_t)n : have;
    r->start += take;
    n -= (long)take;
  }
  return 1;
}

static int write_all(SSL *ssl, int fd, const char *data, size_t len) {
  while (len > 0) {
    int n = ssl ? SSL_write(ssl, data, (int)len) : (int)send(fd, data, len, MSG_NOSIGNAL);
    if (n <= 0) return 0;
    data += n;
    len -= (size_t)n;
  }
  return 1;
}

/* One response: its status and body length (-1 on a broken answer). */
static int read_response(reader *r, int *status, long *body, int first) {
  char line[8192];
  if (!read_line(r, line, sizeof line)) return 0;
  if (sscanf(line, "HTTP/%*s %d", status) != 1) return 0;
  long length = -1;
  int chunked = 0;
  for (;;) {
    if (!read_line(r, line, sizeof line)) return 0;
    if (!line[0]) break;
    if (!strncasecmp(line, "content-length:", 15)) length = atol(line + 15);
    if (!strncasecmp(line, "transfer-encoding:", 18) && strcasestr(line, "chunked")) chunked = 1;
    if (first && (!strncasecmp(line, "cache-status:", 13) || !strncasecmp(line, "x-cache:", 8))) {
      pthread_mutex_lock(&header_lock);
      if (!cache_header[0]) snprintf(cache_header, sizeof cache_header, "%.255s", line);
      pthread_mutex_unlock(&header_lock);
    }
  }
  if (chunked) {
    long total = 0;
    for (;;) {
      if (!read_line(r, line, sizeof line)) return 0;
      long size = strtol(line, NULL, 16);
      if (size == 0) {
        do {
          if (!read_line(r, line, sizeof line)) return 0;
        } while (line[0]);
        break;
      }
      if (!skip(r, size) || !read_line(r, line, sizeof line)) return 0;
      total += size;
    }
    *body = total;
    return 1;
  }
  if (length < 0) return 0; /* keep-alive needs a length */
  if (!skip(r, length)) return 0;
  *body = length;
  return 1;
}

typedef struct {
  double *latencies;
  long count, capacity, errors, bytes;
  char error[160];
} result;

static void fail(result *res, const char *what) {
  res->errors++;
  if (!res->error[0]) {
    unsigned long e = ERR_get_error();
    snprintf(res->error, sizeof res->error, "%s%s%s", what, e ? ": " : "", e ? ERR_reason_error_string(e) : "");
  }
}

static void *run(void *arg) {
  result *res = arg;
  reader *r = calloc(1, sizeof *r);
  char request[2048];
  int status = 0;
  long body = 0;
  int connected = 0;
  int fd = socket(AF_INET, SOCK_STREAM, 0);
  struct sockaddr_in address = {.sin_family = AF_INET, .sin_port = htons((uint16_t)via_port)};
  inet_pton(AF_INET, via_ip, &address.sin_addr);
  int one = 1;
  setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
  struct timeval limit = {.tv_sec = 10}; /* a server that stops answering fails the run, never hangs it */
  setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &limit, sizeof limit);
  setsockopt(fd, SOL_SOCKET, SO_SNDTIMEO, &limit, sizeof limit);
  r->fd = fd;
  if (connect(fd, (struct sockaddr *)&address, sizeof address) != 0) {
    fail(res, "connect");
    goto ready;
  }
  if (tunnel) {
    char line[8192];
    int n = snprintf(request, sizeof request, "CONNECT %s HTTP/1.1\r\nHost: %s\r\n\r\n", authority, authority);
    if (!write_all(NULL, fd, request, (size_t)n) || !read_line(r, line, sizeof line) ||
        sscanf(line, "HTTP/%*s %d", &status) != 1 || status != 200) {
      fail(res, "CONNECT refused");
      goto ready;
    }
    while (read_line(r, line, sizeof line) && line[0]) {
    }
    if (r->start != r->end) {
      fail(res, "bytes after the CONNECT answer");
      goto ready;
    }
  }
  r->ssl = SSL_new(ctx);
  SSL_set_tlsext_host_name(r->ssl, host);
  SSL_set1_host(r->ssl, host);
  SSL_set_fd(r->ssl, fd);
  if (SSL_connect(r->ssl) != 1) {
    fail(res, "TLS handshake");
    goto ready;
  }
  connected = 1;
ready:
  pthread_barrier_wait(&ready);
  if (connected) {
    int n = snprintf(request, sizeof request, "GET %s HTTP/1.1\r\nHost: %s\r\nUser-Agent: tlsload\r\n\r\n", path, authority);
    for (int first = 1;; first = 0) {
      double t0 = now();
      if (t0 >= deadline) break;
      if (!write_all(r->ssl, fd, request, (size_t)n) || !read_response(r, &status, &body, first)) {
        fail(res, "connection closed or broken answer");
        break;
      }
      double t1 = now();
      if (status != 200 || (expected_bytes >= 0 && body != expected_bytes)) {
        char what[96];
        snprintf(what, sizeof what, "answer %d with %ld bytes", status, body);
        fail(res, what);
        break;
      }
      if (res->count == res->capacity) {
        res->capacity = res->capacity ? res->capacity * 2 : 65536;
        res->latencies = realloc(res->latencies, (size_t)res->capacity * sizeof(double));
      }
      res->latencies[res->count++] = t1 - t0;
      res->bytes += body;
    }
  }
  if (r->ssl) SSL_free(r->ssl);
  close(fd);
  free(r);
  return NULL;
}

static int compare(const void *a, const void *b) {
  double x = *(const double *)a, y = *(const double *)b;
  return (x > y) - (x < y);
}

static double percentile(double *sorted, long n, double p) {
  if (n == 0) return 0;
  long i = (long)(p / 100 * (double)(n - 1) + 0.5);
  return sorted[i] * 1000;
}

int main(int argc, char **argv) {
  for (int i = 1; i < argc; i++) {
    const char *a = argv[i], *v = i + 1 < argc ? argv[i + 1] : NULL;
    if (!strcmp(a, "--tunnel")) { tunnel = 1; continue; }
    if (!v) { fprintf(stderr, "tlsload: %s needs a value\n", a); return 2; }
    if (!strcmp(a, "--via")) {
      static char ip[64];
      const char *colon = strrchr(v, ':');
      if (!colon || colon - v >= (long)sizeof ip) { fprintf(stderr, "tlsload: --via %s is not IP:PORT\n", v); return 2; }
      memcpy(ip, v, (size_t)(colon - v));
      via_ip = ip;
      via_port = atoi(colon + 1);
    } else if (!strcmp(a, "--authority")) authority = v;
    else if (!strcmp(a, "--path")) path = v;
    else if (!strcmp(a, "--cafile")) cafile = v;
    else if (!strcmp(a, "--connections")) connections = atoi(v);
    else if (!strcmp(a, "--duration")) duration = atof(v);
    else if (!strcmp(a, "--bytes")) expected_bytes = atol(v);
    else { fprintf(stderr, "tlsload: unknown argument %s\n", a); return 2; }
    i++;
  }
  if (!via_ip || !authority || !path || !cafile || connections < 1) {
    fprintf(stderr, "tlsload: --via, --authority, --path and --cafile are required\n");
    return 2;
  }
  const char *colon = strrchr(authority, ':');
  size_t host_len = colon ? (size_t)(colon - authority) : strlen(authority);
  if (host_len >= sizeof host) host_len = sizeof host - 1;
  memcpy(host, authority, host_len);
  ctx = SSL_CTX_new(TLS_client_method());
  SSL_CTX_set_verify(ctx, SSL_VERIFY_PEER, NULL);
  if (SSL_CTX_load_verify_locations(ctx, cafile, NULL) != 1) {
    fprintf(stderr, "tlsload: cannot read the CA file %s\n", cafile);
    return 2;
  }
  pthread_barrier_init(&ready, NULL, (unsigned)connections + 1);
  pthread_t *threads = calloc((size_t)connections, sizeof *threads);
  result *results = calloc((size_t)connections, sizeof *results);
  /* The clock starts once every connection has its TLS session (or has failed). */
  for (int i = 0; i < connections; i++) pthread_create(&threads[i], NULL, run, &results[i]);
  start_time = now();
  deadline = start_time + 3600;
  pthread_barrier_wait(&ready);
  start_time = now();
  deadline = start_time + duration;
  double cpu_start = cpu_seconds();
  for (int i = 0; i < connections; i++) pthread_join(threads[i], NULL);
  double elapsed = now() - start_time;
  double cpu = cpu_seconds() - cpu_start;
  long total = 0, errors = 0, bytes = 0;
  const char *error = "";
  for (int i = 0; i < connections; i++) {
    total += results[i].count;
    errors += results[i].errors;
    bytes += results[i].bytes;
    if (!error[0] && results[i].error[0]) error = results[i].error;
  }
  double *all = malloc((size_t)(total ? total : 1) * sizeof(double));
  long k = 0;
  for (int i = 0; i < connections; i++) {
    memcpy(all + k, results[i].latencies, (size_t)results[i].count * sizeof(double));
    k += results[i].count;
  }
  qsort(all, (size_t)total, sizeof(double), compare);
  for (char *c = cache_header; *c; c++)
    if (*c == '"' || *c == '\\') *c = '\'';
  for (const char *c = error; *c; c++)
    if (*c == '"' || *c == '\\') error = "(an error message with quotes)";
  printf("BENCH_JSON {\"requests\": %ld, \"duration_s\": %.6f, \"rps\": %.2f, \"bytes\": %ld, "
         "\"p50_ms\": %.3f, \"p90_ms\": %.3f, \"p99_ms\": %.3f, \"max_ms\": %.3f, \"errors\": %ld, "
         "\"client_cpu_s\": %.4f, \"error\": \"%s\", \"cache_header\": \"%s\"}\n",
         total, elapsed, total / elapsed, bytes, percentile(all, total, 50), percentile(all, total, 90),
         percentile(all, total, 99), percentile(all, total, 100), errors, cpu, error, cache_header);
  return errors && !total ? 1 : 0;
}
