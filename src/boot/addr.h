/*
 * addr.h - bootstrap addresses as text: "host:port", "[v6]:port" and the
 * tcp:// URLs of aclshmem's DEFAULT mode, the IPv4 address of an interface,
 * and a port reserved by binding it.
 *
 * One rule for every address in symm's bootstrap (SYMM_BOOT_ADDR, unique ids,
 * SHMEM_UID_SESSION_ID, ip_port URLs): "host:port" where host has no ':', or
 * "[v6 address]:port" with the brackets. An IPv6 address needs its brackets,
 * so that "::1:5000" never reads as host "::1", port 5000.
 */
#ifndef SYMM_BOOT_ADDR_H
#define SYMM_BOOT_ADDR_H

#include <stddef.h>
#include <stdint.h>
#include "runtime/status.h"

/* Room for "[v6 address]:port" and its NUL. */
#define SYMM_ADDR_MAX 96

/* "host:port" or "[v6]:port" into host (brackets removed) and a port in
 * 0..65535. SYMM_OK, or SYMM_ERR_INVALID (also when host does not fit in
 * hcap); logs nothing: the caller names the address's origin. */
SYMM_MUST_CHECK int symm_addr_split(const char *addr, char *host, size_t hcap, long *port_p);

/* host and port into "host:port", or "[host]:port" when host is IPv6. */
void symm_addr_join(const char *host, long port, char *out, size_t cap);

/* The IPv4 address of interface ifname, or (ifname NULL) of the first
 * interface that is up and not loopback. SYMM_OK, SYMM_ERR_INVALID (no such
 * address) or SYMM_ERR_SYS; logs nothing. */
SYMM_MUST_CHECK int symm_addr_ipv4_of_interface(const char *ifname, char *out, size_t cap);

/* Bind a TCP socket to the numeric address host and a port the kernel picks;
 * *fd_p stays bound (not listening) so that the port stays this process's.
 * Logs its failures under routine: SYMM_ERR_INVALID (host is not numeric) or
 * SYMM_ERR_BOOT. */
SYMM_MUST_CHECK int symm_addr_bind_free_port(const char *host, long *port_p, int *fd_p,
                                             const char *routine);

/* "tcp://host:port" or "tcp6://[address]:port" into "host:port" or
 * "[address]:port"; port 0 is start + instance_id of
 * SHMEM_INSTANCE_PORT_RANGE=start:end. Logs its failures under routine:
 * SYMM_ERR_INVALID. */
SYMM_MUST_CHECK int symm_addr_from_url(const char *url, uint64_t instance_id, char *addr,
                                       size_t cap, const char *routine);

#endif
