# Teams (pe/team.c): queries, translate_pe, split_strided (strides 1, 2,
# -1, 0 with size 1, single PEs, splits of splits), invalid splits,
# split_2d layouts, team_sync, team contexts, team_ptr, 200 create/destroy
# cycles (past the default SYMM_MAX_TEAMS of 64). Odd team sizes matter,
# so 3 PEs too.
symm_pe_test(team NPS 1 2 3 4 TIMEOUT 30)
# Teams split and destroyed back to back, each in the slot the last one
# freed (its node-aware runs are in nodes.cmake).
symm_pe_test(team_reuse ARGS 300)
# Both barrier forms (coll.cmake's coll_barrier_*): team creation and
# destruction drain the central one's arrival counts. No UCX runs, as
# there: SYMM_BARRIER only concerns node-local teams.
symm_pe_test(team_dissem PROGRAM team NPS 3 4 TIMEOUT 30 NOUCX ENV SYMM_BARRIER=dissemination)
symm_pe_test(team_central PROGRAM team NPS 3 4 TIMEOUT 30 NOUCX ENV SYMM_BARRIER=central)
symm_pe_test(team_reuse_central PROGRAM team_reuse NPS 3 4 NOUCX ARGS 300 ENV SYMM_BARRIER=central)
# The team limit: with SYMM_MAX_TEAMS=4 (world and shared hold two), the
# third split fails with SHMEM_TEAM_INVALID; a destroy frees a slot again.
# Every team alive at once works.
symm_pe_test(team_limit PROGRAM team NPS 1 2 3 4 TIMEOUT 30 ENV SYMM_MAX_TEAMS=4 ARGS limit)
# The same past 64 teams (more than one word of the slot bitmap).
symm_pe_test(team_limit130 PROGRAM team NPS 1 2 3 4 TIMEOUT 30 ENV SYMM_MAX_TEAMS=130 ARGS limit)

# Teams made by their members alone (pe/team_group.c): disjoint groups at
# once, overlapping pairs, a reversed list while another PE is elsewhere,
# 100 create/destroy cycles (past SYMM_MAX_GROUP_TEAMS), bad lists; 3 PEs
# for the odd sizes; and with just the group slots the test needs at once
# (5 at 4 PEs), each reused many times.
symm_pe_test(team_group NPS 1 2 3 4 TIMEOUT 60)
symm_pe_test(team_group_few_slots PROGRAM team_group NPS 2 4 TIMEOUT 60 ARGS 40
  ENV SYMM_MAX_GROUP_TEAMS=5)

# Team misuse that ends the job (pe/team_errors.c).
add_executable(team_errors pe/team_errors.c)
target_link_libraries(team_errors PRIVATE symm)
symm_expect_fail(team_destroy_world 2
  "symm: shmem_team_destroy: SHMEM_TEAM_WORLD and SHMEM_TEAM_SHARED cannot be destroyed \\(PE 1\\)"
  $<TARGET_FILE:team_errors> destroy_world)
symm_expect_fail(team_destroy_world_np1 1
  "symm: shmem_team_destroy: SHMEM_TEAM_WORLD and SHMEM_TEAM_SHARED cannot be destroyed"
  $<TARGET_FILE:team_errors> destroy_world)
symm_expect_fail(team_destroy_shared 4
  "symm: shmem_team_destroy: SHMEM_TEAM_WORLD and SHMEM_TEAM_SHARED cannot be destroyed \\(PE 3\\)"
  $<TARGET_FILE:team_errors> destroy_shared)
