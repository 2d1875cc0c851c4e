// Tree gravity across MPI ranks (docs/mpi.md, "Gravity across ranks"): every rank builds the
// octree of its own particles (gravity/octree.hpp) and sends every other rank a locally essential
// tree (LET) - the part of its tree that the other rank's targets need - and each rank walks its
// own tree plus the received ones with the single-process walk (gravity/tree_gravity.hpp).
//
// Local trees. Keys are computed in the cube the one-process octree would use (the bounding cube
// of all ranks' particles): since a domain is a key range (core/sfc_key.hpp: a union of octree
// cells), every node of a local tree is a cell of the one-process tree, except the few top nodes
// that straddle domain boundaries (the part of the cell on this rank). Built in each rank's own
// bounding cube instead, the nodes are cut differently and the relative criterion gave median
// errors up to 1.5x (force) and 2.8x (potential) those of one process on 2 ranks (measured, gas +
// dark-matter test).
//
// Target boxes. A rank describes its targets by at most kMaxGravityBoxes boxes: nodes of its tree,
// found from the root by splitting the node of largest extent (only nodes of more than
// group_size particles, so that every target group of the walk lies inside one box), each with
// the bounding box of its particles, their largest softening, and their smallest previous |a|
// (the relative criterion) - split into the smallest non-zero one and whether any is zero, since
// a group holding a zero uses the geometric criterion. Every rank's boxes are gathered
// (MpiComm::all_gather, as the SPH halos gather their search boxes).
// LET. Rank q walks its tree once per box b of rank r with the walk's own test
// (node_accepted): a node is accepted for b only when it is accepted for the box enlarged by a
// relative 1e-5 of the node's distance (float round-off of the group-centred coordinates) and
// with theta and rel_tol reduced by 1e-5 - and, when b holds particles with and without a previous
// |a|, under both criteria. Every group of r lies in one box, and the test is monotone (a smaller
// group box, a larger |a_old|), so a node accepted for b is accepted for each of b's groups: the
// nodes a group of r would open are exactly among those q opened for some box. q sends the
// visited part of its tree: every node tested for some box, with its moments and box; the
// children of nodes opened for some box; the particles (position, mass, softening) of leaves
// opened for some box. Nodes no box opened arrive without children and are never opened by r
// (tree_gravity counts it if they would be; that is an mpsph::Error here).
// Force. Rank r walks, for each of its groups, its own tree and then the P - 1 received trees
// with the same criterion: the lists a group gets are those of one process holding all particles
// up to the different grouping of the targets (groups are formed in each rank's own tree), so the
// force and potential errors follow the single-process criterion (measured in
// tests/parallel/distributed_gravity_mpi.cpp). Cost: the local walk plus one walk per received
// tree per group - the LET's top levels are walked by every group, which on P ranks adds at most
// P - 1 root-to-frontier descents per group.
//
// Supported: the tree method, open boundaries, both criteria, both softening kernels, every
// particle active (global time steps) or a subset (block time steps). Refused (mpsph::Error on
// every rank): gravity.method direct.
#pragma once

#include <cstddef>
#include <memory>
#include <vector>

#include "core/active_set.hpp"
#include "core/box.hpp"
#include "core/particle_store.hpp"
#include "core/physics_module.hpp"
#include "gravity/gravity_params.hpp"
#include "gravity/octree.hpp"
#include "gravity/tree_gravity.hpp"
#include "gravity/tree_with_sources.hpp"
#include "parallel/mpi_comm.hpp"

namespace mpsph {

// Most target boxes per rank: each other rank walks its tree once per box.
constexpr std::size_t kMaxGravityBoxes = 512;

class DeviceAllToAll;  // parallel/device_all_to_all.hpp (CUDA builds)

struct DistributedGravityReport {
  std::size_t boxes = 0;               // this rank's target boxes
  std::size_t let_nodes_sent = 0;      // LET nodes this rank sent, summed over the other ranks
  std::size_t let_particles_sent = 0;  // LET particles sent, summed over the other ranks
  std::size_t let_nodes_received = 0;
  std::size_t let_particles_received = 0;
  std::size_t let_bytes_sent = 0;  // nodes and particles as sent
  bool relative = false;           // the relative criterion was used (a previous |a| existed)
  TreeWalkStats walk;              // the local walk over own tree + received trees
  // Tree build; LET selection (this rank's target boxes and its LETs for the others) and exchange
  // (the boxes' gather, the LETs' all-to-all and unpacking); walk.
  double build_s = 0.0, let_select_s = 0.0, let_exchange_s = 0.0, walk_s = 0.0;
  double let_s() const { return let_select_s + let_exchange_s; }
};

// mpsph::Error for the gravity that does not run across ranks: the direct method, and any in a
// periodic `box` (Box{}: open, for a check before the run's box is known). Nothing when gravity
// is off. The one check of DistributedStepper, DistributedGravity and the device-resident GPU
// ranks.
void check_gravity_across_ranks(const GravityParams& p, const Box& box);

class DistributedGravity {
 public:
  // The tree build and the walk run on `backend` (gravity/tree_with_sources.hpp: on the GPU the
  // particles are copied to the device for them); the selection and exchange of the locally
  // essential trees on the host, the same for both.
  explicit DistributedGravity(Backend backend = Backend::Cpu);
  // With a given tree (the device-resident ranks' make_resident_gpu_tree_with_sources).
  explicit DistributedGravity(std::unique_ptr<TreeWithSources> tree);
  // Writes acc_grav[i] and pot[i] (G applied; potential per unit mass without the
  // self-interaction) of every local particle of `active` (block time steps; default: all), from
  // the particles of all ranks (collective); the others keep theirs. Every rank's tree holds all
  // its particles as sources; its target boxes cover only the active ones (each box the bounding
  // box of the active members of a box node: the walk's groups, bounded by their active members,
  // still lie inside them), so the locally essential trees shrink with the active set. With
  // p.enabled false both are zero. The relative criterion needs |a| of a previous call: the first
  // call uses the geometric one (on every rank alike). `update` Refit: the particles are those of
  // the last call in the same store order (block steps inside a segment): the CPU tree keeps its
  // topology and is refitted to the drifted positions, as one process's is
  // (TreeWithSources::build).
  DistributedGravityReport compute(ParticleStore& store, const GravityParams& p, double G,
                                   const MpiComm& comm, const ActiveSet& active = {},
                                   TreeUpdate update = TreeUpdate::Rebuild);
  // The store's acc_grav is a previous evaluation's (a restart): the next call may use the
  // relative criterion at once.
  void assume_previous() { have_previous_ = true; }
  // The LETs travel GPU to GPU through `device` (null: through the host and MPI) when the tree
  // can send them so (TreeWithSources::sends_lets_on_device).
  void send_lets_through(DeviceAllToAll* device) { device_ = device; }
  std::size_t device_bytes() const { return tree_->device_bytes(); }
  std::size_t let_device_bytes() const { return tree_->let_device_bytes(); }

 private:
  // The device path of compute(): this rank's LETs for the others' boxes as messages on its GPU,
  // exchanged GPU to GPU, walked as received.
  void exchange_and_walk_on_device(const std::vector<LetBox>& boxes,
                                   const std::vector<std::size_t>& box_off, const OpeningParams& op,
                                   bool relative, const GravityParams& p, double G,
                                   const MpiComm& comm, DistributedGravityReport& rep,
                                   double& t_selected);
  // After a walk: |a| exists for the relative criterion from now on; an Error on every rank when
  // a group of some rank met a LET node without children that it would have opened.
  DistributedGravityReport finish(const DistributedGravityReport& rep, const MpiComm& comm);
  std::unique_ptr<TreeWithSources> tree_;
  DeviceAllToAll* device_ = nullptr;
  std::vector<double> acc_old_;
  std::vector<uint8_t> active_mask_;
  bool have_previous_ = false;
};

}  // namespace mpsph
