// SPDX-License-Identifier: GPL-2.0
/*
 * vlink-server: the link's shared memory.
 *
 * The server is the only writer of the header; each guest writes only its
 * own side area (see include/uapi/linux/vlink.h).  The one exception is
 * that the server resets a role's side area whenever that role's QEMU comes
 * or goes, because a guest that vanished cannot clear its own state.
 */
#define _GNU_SOURCE
#include <endian.h>
#include <errno.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "log.h"
#include "shm.h"

/* The guests validate the layout against these, so keep them in one place. */
static void shm_write_header(struct vlink_header *hdr)
{
	int role;

	hdr->magic = htole32(VLINK_MAGIC);
	hdr->version = htole32(VLINK_VERSION);
	hdr->shm_size = htole32(VLINK_SHM_SIZE);
	hdr->nr_vectors = htole32(VLINK_NR_VECTORS);
	for (role = 0; role < VLINK_NR_ROLES; role++)
		hdr->peer_id[role] = htole32(VLINK_PEER_ID(role));
	hdr->max_functions = htole32(VLINK_MAX_FUNCTIONS);
	hdr->side_offset = htole32(VLINK_SIDE_OFFSET);
	hdr->func_offset = htole32(VLINK_FUNC_OFFSET);
	hdr->irq_offset = htole32(VLINK_IRQ_OFFSET);
	hdr->irq_bits = htole32(VLINK_IRQ_BITS);
	hdr->cfg_offset = htole32(VLINK_CFG_OFFSET);
	hdr->cfg_size = htole32(VLINK_CFG_SIZE);
	hdr->msi_address = htole64(VLINK_MSI_ADDRESS);
	hdr->xlat_offset = htole32(VLINK_XLAT_OFFSET);
	hdr->xlat_extents = htole32(VLINK_XLAT_EXTENTS);
}

int shm_create(struct vlink_shm *shm)
{
	int err;

	shm->fd = memfd_create("vlink-shm", MFD_CLOEXEC);
	if (shm->fd < 0) {
		err = errno;
		vlog("memfd_create: %s", strerror(err));
		return -err;
	}
	/* A fresh memfd reads as zeroes: everything but the header is clear. */
	if (ftruncate(shm->fd, VLINK_SHM_SIZE) < 0) {
		err = errno;
		vlog("cannot size the shared memory: %s", strerror(err));
		goto err_close;
	}
	shm->base = mmap(NULL, VLINK_SHM_SIZE, PROT_READ | PROT_WRITE,
			 MAP_SHARED, shm->fd, 0);
	if (shm->base == MAP_FAILED) {
		err = errno;
		vlog("cannot map the shared memory: %s", strerror(err));
		goto err_close;
	}
	shm->hdr = (struct vlink_header *)((char *)shm->base +
					   VLINK_HDR_OFFSET);
	shm_write_header(shm->hdr);
	return 0;

err_close:
	close(shm->fd);
	shm->fd = -1;
	return -err;
}

void shm_destroy(struct vlink_shm *shm)
{
	if (shm->base && shm->base != MAP_FAILED)
		munmap(shm->base, VLINK_SHM_SIZE);
	if (shm->fd >= 0)
		close(shm->fd);
	shm->base = NULL;
	shm->hdr = NULL;
	shm->fd = -1;
}

/*
 * A driver that sees present[role] change must find that role's side area
 * already reset, never the stale state of a previous incarnation: hence the
 * fence between the two.
 */
void shm_set_present(struct vlink_shm *shm, enum vlink_role role,
		     bool present)
{
	char *side = (char *)shm->base + VLINK_SIDE_OFFSET +
		     role * VLINK_SIDE_STRIDE;
	struct vlink_header *hdr = shm->hdr;

	memset(side, 0, VLINK_SIDE_STRIDE);
	__atomic_thread_fence(__ATOMIC_SEQ_CST);
	if (present)
		__atomic_store_n(&hdr->connects[role],
				 htole32(le32toh(hdr->connects[role]) + 1),
				 __ATOMIC_SEQ_CST);
	__atomic_store_n(&hdr->present[role], htole32(present ? 1 : 0),
			 __ATOMIC_SEQ_CST);
	__atomic_store_n(&shm->on_link[role], present, __ATOMIC_SEQ_CST);
}

/*
 * A forced link down: only the flag changes.  The role's side area is the
 * state of a live driver and stays as it is, and so does connects[].
 */
void shm_force_present(struct vlink_shm *shm, enum vlink_role role,
		       bool present)
{
	__atomic_store_n(&shm->hdr->present[role], htole32(present ? 1 : 0),
			 __ATOMIC_SEQ_CST);
	__atomic_store_n(&shm->on_link[role], present, __ATOMIC_SEQ_CST);
}

/*
 * Whether @role is on the link (connected and not forced down), for the
 * DMA engine's threads: what the main thread last set, not what the
 * shared page says now.
 */
bool shm_on_link(const struct vlink_shm *shm, int role)
{
	return __atomic_load_n(&shm->on_link[role], __ATOMIC_ACQUIRE);
}
