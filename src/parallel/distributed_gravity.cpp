#include "parallel/distributed_gravity.hpp"

#include <mpi.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <queue>
#include <string>
#include <utility>

#include "core/error.hpp"
#include "core/wall_clock.hpp"
#include "gravity/let_kern.hpp"
#include "parallel/domain_decomposition.hpp"
#ifdef MPSPH_HAVE_CUDA
#include "parallel/device_all_to_all.hpp"
#endif

namespace mpsph {

namespace {

// The nodes whose particles form the boxes: from the root, the node with the largest extent is
// replaced by its children while there are at most kMaxGravityBoxes. Only nodes holding more
// than group_size particles are split, so every target group (the largest nodes with at most
// group_size particles, or chunks of a larger leaf) lies inside one box node. Splitting by extent
// keeps the boxes compact: a box of consecutive groups in key order can span the sparse outskirts
// on both sides of a dense core, and then needs most of the other ranks' particles (measured: the
// whole remote sphere of 10^5 particles was sent).
std::vector<int32_t> box_nodes(const OctreeView& t, int group_size) {
  std::vector<int32_t> out;
  if (t.n_nodes == 0) return out;
  auto splittable = [&](int32_t i) {
    return t.nodes[i].n_child > 0 && t.nodes[i].end - t.nodes[i].begin > group_size;
  };
  auto larger = [&](int32_t a, int32_t b) { return t.nodes[a].size < t.nodes[b].size; };
  std::priority_queue<int32_t, std::vector<int32_t>, decltype(larger)> open(larger);
  std::size_t count = 1;
  if (splittable(0))
    open.push(0);
  else
    out.push_back(0);
  while (!open.empty()) {
    const OctreeNode& n = t.nodes[open.top()];
    if (count + std::size_t(n.n_child) - 1 > kMaxGravityBoxes) break;
    open.pop();
    count += std::size_t(n.n_child) - 1;
    for (int32_t c = n.child_begin; c < n.child_begin + n.n_child; ++c) {
      if (splittable(c))
        open.push(c);
      else
        out.push_back(c);
    }
  }
  for (; !open.empty(); open.pop()) out.push_back(open.top());
  return out;
}

// `active` (caller order; null: all): only the active particles are targets (block time steps);
// a box holds their bounding box and values, and a box node without any gives no box. The walk's
// groups are bounded by their active members, so each still lies inside its box node's box.
std::vector<LetBox> target_boxes(const OctreeView& t, int group_size, const double* acc_old,
                                 double G, const uint8_t* active) {
  const std::vector<int32_t> nodes = box_nodes(t, std::max(1, group_size));
  std::vector<LetBox> all(nodes.size());
  std::vector<uint8_t> any_active(nodes.size(), 0);
  constexpr double inf = std::numeric_limits<double>::infinity();
  // One box node per thread at a time (each box's values in its particles' order).
#pragma omp parallel for schedule(dynamic, 1)
  for (std::ptrdiff_t k = 0; k < std::ptrdiff_t(nodes.size()); ++k) {
    const int32_t ni = nodes[std::size_t(k)];
    LetBox b{{inf, inf, inf}, {-inf, -inf, -inf}, 0.0f, 0.0f, 0};
    float a_nz = std::numeric_limits<float>::infinity();
    bool any = false;
    for (int32_t i = t.nodes[ni].begin; i < t.nodes[ni].end; ++i) {
      if (active && !active[t.order[i]]) continue;
      any = true;
      const Vec3d& x = t.particles.pos[i];
      b.lo = {std::min(b.lo.x, x.x), std::min(b.lo.y, x.y), std::min(b.lo.z, x.z)};
      b.hi = {std::max(b.hi.x, x.x), std::max(b.hi.y, x.y), std::max(b.hi.z, x.z)};
      b.eps_max = std::max(b.eps_max, t.particles.eps[i]);
      // The walk's group value float(min |a_old| / G) is the minimum of these (rounding is
      // monotone).
      const float a = acc_old ? float(acc_old[t.order[i]] / G) : 0.0f;
      if (a > 0.0f)
        a_nz = std::min(a_nz, a);
      else
        b.has_zero = 1;
    }
    b.acc_min = std::isfinite(a_nz) ? a_nz : 0.0f;
    all[std::size_t(k)] = b;
    any_active[std::size_t(k)] = any ? 1 : 0;
  }
  std::vector<LetBox> boxes;
  for (std::size_t k = 0; k < nodes.size(); ++k)
    if (any_active[k]) boxes.push_back(all[k]);
  return boxes;
}

// The LET of tree t for the boxes [b0, b1): nodes in breadth-first order (children contiguous;
// child_begin and begin/end relative to this LET's first node and particle) and the particles of
// opened leaves, appended to `nodes` and `parts`.
void build_let(const OctreeView& t, const LetBox* b0, const LetBox* b1, const OpeningParams& op,
               bool relative, std::vector<uint8_t>& opened, std::vector<OctreeNode>& nodes,
               std::vector<LetParticle>& parts) {
  if (t.n_nodes == 0 || b0 == b1) return;
  // The boxes' walks on the threads; a node's flag is only ever set to 1, by atomic writes. (The
  // visited nodes are the root and the children of opened ones: the copy below finds them.)
  opened.assign(std::size_t(t.n_nodes), 0);
  const std::ptrdiff_t n_boxes = b1 - b0;
#pragma omp parallel
  {
    std::vector<int32_t> stack;
#pragma omp for schedule(dynamic, 1)
    for (std::ptrdiff_t k = 0; k < n_boxes; ++k) {
      const LetBox& b = b0[k];
      stack.assign(1, 0);
      while (!stack.empty()) {
        const int32_t ni = stack.back();
        stack.pop_back();
        const OctreeNode& n = t.nodes[ni];
        if (let_node_accepted(b, n, op, relative)) continue;
#pragma omp atomic write
        opened[std::size_t(ni)] = 1;
        for (int32_t c = n.child_begin; c < n.child_begin + n.n_child; ++c) stack.push_back(c);
      }
    }
  }
  // Breadth-first copy of the visited part: node k of `queue` becomes LET node k.
  const std::size_t part0 = parts.size();
  std::vector<int32_t> queue{0};
  for (std::size_t k = 0; k < queue.size(); ++k) {
    const OctreeNode& n = t.nodes[queue[k]];
    OctreeNode out = n;
    out.begin = out.end = 0;
    out.child_begin = 0;
    out.n_child = 0;
    if (opened[std::size_t(queue[k])]) {
      if (n.n_child > 0) {
        out.child_begin = int32_t(queue.size());
        out.n_child = n.n_child;
        for (int32_t c = n.child_begin; c < n.child_begin + n.n_child; ++c) queue.push_back(c);
      } else {
        out.begin = int32_t(parts.size() - part0);
        for (int32_t j = n.begin; j < n.end; ++j)
          parts.push_back({t.particles.pos[j], t.particles.mass[j], t.particles.eps[j]});
        out.end = int32_t(parts.size() - part0);
      }
    }
    nodes.push_back(out);
  }
}

}  // namespace

void check_gravity_across_ranks(const GravityParams& p, const Box& box) {
  if (p.enabled && p.method != GravityMethod::Tree)
    throw Error(
        "MPI: gravity.method direct is not supported across ranks (docs/mpi.md); use "
        "gravity.method: tree or run on one rank");
  if (p.enabled && box.periodic)
    throw Error(
        "MPI: gravity in a periodic box is not supported across ranks (docs/mpi.md); set "
        "gravity.enabled: false or run on one rank");
}

DistributedGravity::DistributedGravity(Backend backend)
    : tree_(backend == Backend::Gpu ? make_gpu_tree_with_sources() : make_cpu_tree_with_sources()) {
}

DistributedGravity::DistributedGravity(std::unique_ptr<TreeWithSources> tree)
    : tree_(std::move(tree)) {}

DistributedGravityReport DistributedGravity::compute(ParticleStore& s, const GravityParams& p,
                                                     double G, const MpiComm& comm,
                                                     const ActiveSet& active, TreeUpdate update) {
  DistributedGravityReport rep;
  const std::size_t n = s.size();
  if (!p.enabled) {
    for (std::size_t k = 0; k < active.count(n); ++k)
      s.acc_grav[active[k]] = {0, 0, 0}, s.pot[active[k]] = 0.0;
    return rep;
  }
  const uint8_t* mask = nullptr;
  if (!active.all()) {
    active_mask_.assign(n, 0);
    for (std::size_t k = 0; k < active.n; ++k) active_mask_[active[k]] = 1;
    mask = active_mask_.data();
  }
  check_gravity_across_ranks(p, Box{});
  const double t0 = wall_seconds();
  // Keys in the cube the one-process octree builds from all particles (the global bounding cube,
  // widened by 1e-9 as Octree does): every node of a local tree is then a cell of the
  // one-process tree, or a part of one that straddles the domain boundary.
  Vec3d lo, hi;
  tree_->bounds(s, lo, hi);
  const KeyCube cube = global_key_cube(lo, hi, Box{}, comm);
  const bool relative = p.criterion == OpeningCriterion::Relative && have_previous_;
  const OctreeView t = tree_->build(s, p, cube.lo, cube.edge * (1.0 + 1e-9), relative, update);
  rep.relative = relative;
  // A backend that selects the LETs where its tree is (the GPU's) reads |a_old| there too.
  const bool on_backend = tree_->selects_lets();
  if (relative && !on_backend) {
    acc_old_.resize(n);
#pragma omp parallel for schedule(static)
    for (std::ptrdiff_t i = 0; i < std::ptrdiff_t(n); ++i)
      acc_old_[std::size_t(i)] = norm(s.acc_grav[std::size_t(i)]);
  }
  const double* acc_old = relative && !on_backend ? acc_old_.data() : nullptr;
  const double t1 = wall_seconds();

  // Target boxes of every rank, then this rank's LET for each other rank.
  TreeWalkParams wp;
  wp.opening = opening_params(p);
  wp.group_size = p.group_size;
  // The boxes bound the groups the walk visits: the active particles' (the CPU's walk), or every
  // particle's (the GPU's walks all and keeps the active values).
  const std::vector<LetBox> mine =
      on_backend
          ? tree_->let_target_boxes(p.group_size, G, kMaxGravityBoxes)
          : target_boxes(t, p.group_size, acc_old, G, tree_->walks_subsets() ? mask : nullptr);
  rep.boxes = mine.size();
  const double t_boxes = wall_seconds();
  std::vector<std::size_t> box_off;
  const std::vector<LetBox> boxes = comm.all_gather(mine, &box_off);
  const double t_gather = wall_seconds();
  const int P = comm.size();
  if (device_ && on_backend && tree_->sends_lets_on_device()) {
    double t_selected = 0.0;
    exchange_and_walk_on_device(boxes, box_off, wp.opening, relative, p, G, comm, rep, t_selected);
    const double t3 = wall_seconds();
    rep.build_s = t1 - t0;
    rep.let_select_s = (t_boxes - t1) + (t_selected - t_gather);
    rep.let_exchange_s = (t_gather - t_boxes) + (t3 - t_selected) - rep.walk_s;
    return finish(rep, comm);
  }
  std::vector<OctreeNode> send_nodes;
  std::vector<LetParticle> send_parts;
  std::vector<std::size_t> node_off(P + 1, 0), part_off(P + 1, 0);
  std::vector<uint8_t> opened;
  for (int r = 0; r < P; ++r) {
    if (r != comm.rank() && on_backend)
      tree_->append_let(std::vector<LetBox>(boxes.begin() + std::ptrdiff_t(box_off[r]),
                                            boxes.begin() + std::ptrdiff_t(box_off[r + 1])),
                        wp.opening, relative, send_nodes, send_parts);
    else if (r != comm.rank())
      build_let(t, boxes.data() + box_off[r], boxes.data() + box_off[r + 1], wp.opening, relative,
                opened, send_nodes, send_parts);
    node_off[r + 1] = send_nodes.size();
    part_off[r + 1] = send_parts.size();
  }
  rep.let_nodes_sent = send_nodes.size();
  rep.let_particles_sent = send_parts.size();
  rep.let_bytes_sent =
      send_nodes.size() * sizeof(OctreeNode) + send_parts.size() * sizeof(LetParticle);
  const double t_selected = wall_seconds();
  std::vector<std::size_t> rnode_off, rpart_off;
  const std::vector<OctreeNode> rnodes = comm.all_to_all(send_nodes, node_off, &rnode_off);
  const std::vector<LetParticle> rparts = comm.all_to_all(send_parts, part_off, &rpart_off);
  rep.let_nodes_received = rnodes.size();
  rep.let_particles_received = rparts.size();
  std::vector<Vec3d> rpos(rparts.size());
  std::vector<double> rmass(rparts.size());
  std::vector<float> reps(rparts.size());
#pragma omp parallel for schedule(static)
  for (std::ptrdiff_t k = 0; k < std::ptrdiff_t(rparts.size()); ++k) {
    const LetParticle& q = rparts[std::size_t(k)];
    rpos[std::size_t(k)] = q.pos, rmass[std::size_t(k)] = q.mass, reps[std::size_t(k)] = q.eps;
  }
  std::vector<OctreeView> sources;
  for (int r = 0; r < P; ++r) {
    if (rnode_off[r + 1] == rnode_off[r]) continue;
    const std::size_t pb = rpart_off[r];
    sources.push_back({rnodes.data() + rnode_off[r], int32_t(rnode_off[r + 1] - rnode_off[r]),
                       TreeParticles{rpos.data() + pb, rmass.data() + pb, reps.data() + pb,
                                     int32_t(rpart_off[r + 1] - pb)},
                       nullptr});
  }
  const double t2 = wall_seconds();

  rep.walk = tree_->walk(s, p, G, acc_old, sources.data(), int(sources.size()), mask);
  const double t3 = wall_seconds();
  rep.build_s = t1 - t0;
  rep.let_select_s = (t_boxes - t1) + (t_selected - t_gather);
  rep.let_exchange_s = (t_gather - t_boxes) + (t2 - t_selected);
  rep.walk_s = t3 - t2;
  return finish(rep, comm);
}

DistributedGravityReport DistributedGravity::finish(const DistributedGravityReport& rep,
                                                    const MpiComm& comm) {
  have_previous_ = true;
  if (comm.any(rep.walk.closed_opened > 0))
    throw Error(
        "gravity across ranks: a target group needed a node that its locally essential tree did "
        "not open (" +
        std::to_string(rep.walk.closed_opened) + " on this rank) - a bug of the LET selection");
  return rep;
}

void DistributedGravity::exchange_and_walk_on_device(
    const std::vector<LetBox>& boxes, const std::vector<std::size_t>& box_off,
    const OpeningParams& op, bool relative, const GravityParams& p, double G, const MpiComm& comm,
    DistributedGravityReport& rep, double& t_selected) {
#ifdef MPSPH_HAVE_CUDA
  const int P = comm.size(), me = comm.rank();
  // Per rank: LET nodes, particles, and the bound of the sender's tree generations.
  std::vector<uint64_t> mine(3 * std::size_t(P), 0), theirs(3 * std::size_t(P), 0);
  std::vector<std::size_t> send_off(std::size_t(P) + 1, 0), recv_off(std::size_t(P) + 1, 0);
  const uint64_t generations = uint64_t(tree_->tree_generations());
  bool first = true;
  for (int r = 0; r < P; ++r) {
    LetCounts c;
    if (r != me) {
      c = tree_->append_let_message(
          std::vector<LetBox>(boxes.begin() + std::ptrdiff_t(box_off[std::size_t(r)]),
                              boxes.begin() + std::ptrdiff_t(box_off[std::size_t(r) + 1])),
          op, relative, first);
      first = false;
    }
    mine[3 * std::size_t(r)] = c.nodes;
    mine[3 * std::size_t(r) + 1] = c.particles;
    mine[3 * std::size_t(r) + 2] = generations;
    send_off[std::size_t(r) + 1] = send_off[std::size_t(r)] + let_message_bytes(c);
    rep.let_nodes_sent += std::size_t(c.nodes);
    rep.let_particles_sent += std::size_t(c.particles);
  }
  rep.let_bytes_sent = send_off.back();
  t_selected = wall_seconds();
  MPI_Alltoall(mine.data(), 3, MPI_UINT64_T, theirs.data(), 3, MPI_UINT64_T, comm.get());
  std::vector<LetCounts> counts(static_cast<std::size_t>(P));
  int src_generations = 0;
  for (int q = 0; q < P; ++q) {
    LetCounts& c = counts[std::size_t(q)];
    c.nodes = theirs[3 * std::size_t(q)];
    c.particles = theirs[3 * std::size_t(q) + 1];
    if (c.nodes > 0)
      src_generations = std::max(src_generations, int(theirs[3 * std::size_t(q) + 2]));
    recv_off[std::size_t(q) + 1] = recv_off[std::size_t(q)] + let_message_bytes(c);
    rep.let_nodes_received += std::size_t(c.nodes);
    rep.let_particles_received += std::size_t(c.particles);
  }
  const unsigned char* received =
      device_->exchange(first ? nullptr : tree_->let_messages(), send_off, recv_off);
  const std::vector<std::size_t> offsets(recv_off.begin(), recv_off.end() - 1);
  const double t_walk = wall_seconds();
  rep.walk = tree_->walk_device_sources(p, G, received, offsets, counts, src_generations);
  rep.walk_s = wall_seconds() - t_walk;
#else
  (void)boxes, (void)box_off, (void)op, (void)relative, (void)p, (void)G, (void)comm, (void)rep;
  (void)t_selected;
  throw Error("gravity: LETs GPU to GPU need a CUDA build");
#endif
}

}  // namespace mpsph
