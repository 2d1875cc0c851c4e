// The locally essential trees selected on the GPU (gravity/let_gpu.hpp) against the host's
// definition (parallel/distributed_gravity.cpp, written out again here over the downloaded tree):
// the same target boxes, and for another rank's boxes the same LET - the same nodes, links and
// particles - under the relative and the geometric criterion; as messages GPU to GPU the same LET,
// and walked from there the same accelerations as from the host's forest.
#ifdef MPSPH_HAVE_CUDA
#include "gravity/let_gpu.hpp"

#include <cuda_runtime.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <limits>
#include <queue>
#include <tuple>
#include <vector>

#include "catch.hpp"
#include "core/device_particles.hpp"
#include "gpu_gravity_test_support.hpp"
#include "setups/plummer.hpp"

using namespace mpsph;

namespace {

// The host's box nodes: from the root, the node of largest extent split while there are at most
// max_boxes (only nodes of more than group_size particles).
std::vector<int32_t> host_box_nodes(const std::vector<OctreeNode>& t, int group_size,
                                    std::size_t max_boxes) {
  auto splittable = [&](int32_t i) {
    return t[i].n_child > 0 && t[i].end - t[i].begin > group_size;
  };
  auto larger = [&](int32_t a, int32_t b) { return t[a].size < t[b].size; };
  std::priority_queue<int32_t, std::vector<int32_t>, decltype(larger)> open(larger);
  std::vector<int32_t> out;
  std::size_t count = 1;
  if (splittable(0))
    open.push(0);
  else
    out.push_back(0);
  while (!open.empty()) {
    const OctreeNode& n = t[open.top()];
    if (count + std::size_t(n.n_child) - 1 > max_boxes) break;
    open.pop();
    count += std::size_t(n.n_child) - 1;
    for (int32_t c = n.child_begin; c < n.child_begin + n.n_child; ++c)
      (splittable(c) ? open.push(c) : out.push_back(c));
  }
  for (; !open.empty(); open.pop()) out.push_back(open.top());
  return out;
}

// The host's LET: nodes in breadth-first order, particles of opened leaves.
void host_let(const std::vector<OctreeNode>& t, const std::vector<LetParticle>& particles,
              const std::vector<LetBox>& boxes, const OpeningParams& op, bool relative,
              std::vector<OctreeNode>& nodes, std::vector<LetParticle>& parts) {
  std::vector<uint8_t> opened(t.size(), 0);
  for (const LetBox& b : boxes) {
    std::vector<int32_t> stack{0};
    while (!stack.empty()) {
      const int32_t ni = stack.back();
      stack.pop_back();
      if (let_node_accepted(b, t[ni], op, relative)) continue;
      opened[ni] = 1;
      for (int32_t c = t[ni].child_begin; c < t[ni].child_begin + t[ni].n_child; ++c)
        stack.push_back(c);
    }
  }
  std::vector<int32_t> queue{0};
  for (std::size_t k = 0; k < queue.size(); ++k) {
    const OctreeNode& n = t[queue[k]];
    OctreeNode o = n;
    o.begin = o.end = o.child_begin = o.n_child = 0;
    if (opened[queue[k]]) {
      if (n.n_child > 0) {
        o.child_begin = int32_t(queue.size());
        o.n_child = n.n_child;
        for (int32_t c = n.child_begin; c < n.child_begin + n.n_child; ++c) queue.push_back(c);
      } else {
        o.begin = int32_t(parts.size());
        for (int32_t j = n.begin; j < n.end; ++j) parts.push_back(particles[std::size_t(j)]);
        o.end = int32_t(parts.size());
      }
    }
    nodes.push_back(o);
  }
}

// Node a of LET A and node b of LET B hold the same node, links and particles, recursively;
// returns the number of differences.
std::size_t differences(const std::vector<OctreeNode>& na, const std::vector<LetParticle>& pa,
                        int32_t a, const std::vector<OctreeNode>& nb,
                        const std::vector<LetParticle>& pb, int32_t b) {
  const OctreeNode &x = na[std::size_t(a)], &y = nb[std::size_t(b)];
  std::size_t d = x.com.x != y.com.x || x.com.y != y.com.y || x.com.z != y.com.z ||
                  x.mp.mass != y.mp.mass || x.size != y.size || x.n_child != y.n_child ||
                  x.end - x.begin != y.end - y.begin;
  if (d) return d;
  for (int32_t k = 0; k < x.end - x.begin; ++k) {
    const LetParticle &p = pa[std::size_t(x.begin + k)], &q = pb[std::size_t(y.begin + k)];
    d += p.pos.x != q.pos.x || p.pos.y != q.pos.y || p.pos.z != q.pos.z || p.mass != q.mass ||
         p.eps != q.eps;
  }
  for (int32_t k = 0; k < x.n_child; ++k)
    d += differences(na, pa, x.child_begin + k, nb, pb, y.child_begin + k);
  return d;
}

}  // namespace

TEST_CASE("LETs on the GPU: the host's target boxes and locally essential trees",
          "[gpu][gravity][mpi]") {
  ParticleStore s = make_plummer(40000, 31);
  for (std::size_t i = 0; i < s.size(); ++i) s.type[i] = uint8_t(i % 3 == 0 ? 1 : 0);
  GravityParams p;
  p.softening = {0.01, 0.02, 0.01, 0.01, 0.01, 0.01};
  const double G = 1.0;
  DeviceParticles d;
  test::upload_gravity(d, s);
  GpuGravity gpu;
  gpu.compute(d.view(), p, G);  // acc_grav: the |a_old| of the relative criterion
  ParticleStore with_acc = s;
  test::download_gravity(d, with_acc);
  // The tree in a cube around every particle (as the ranks' common cube would be).
  Vec3d lo{1e30, 1e30, 1e30}, hi{-1e30, -1e30, -1e30};
  for (const Vec3d& x : s.pos) {
    lo = {std::min(lo.x, x.x), std::min(lo.y, x.y), std::min(lo.z, x.z)};
    hi = {std::max(hi.x, x.x), std::max(hi.y, x.y), std::max(hi.z, x.z)};
  }
  const double edge = std::max({hi.x - lo.x, hi.y - lo.y, hi.z - lo.z}) * (1.0 + 1e-9);
  gpu.build_in_cube(d.view(), p, true, lo, edge);
  std::vector<OctreeNode> nodes;
  std::vector<uint32_t> order;
  gpu.download_tree(nodes, order);
  std::vector<LetParticle> particles(s.size());
  for (std::size_t k = 0; k < s.size(); ++k) {
    const uint32_t i = order[k];
    particles[k] = {s.pos[i], s.mass[i], float(p.softening[s.type[i]])};
  }

  DeviceLet let;
  // Target boxes: the host's box nodes, each with its particles' values. 512 boxes of ~80
  // particles, one block each; at most 12, the largest cut into slices of blocks (4 096
  // particles each) and merged.
  for (const std::size_t max_boxes : {std::size_t(512), std::size_t(12)}) {
    INFO("at most " << max_boxes << " boxes");
    const std::vector<LetBox> got = let.target_boxes(gpu.device_tree(), p.group_size, G, max_boxes);
    const std::vector<int32_t> box_nodes = host_box_nodes(nodes, p.group_size, int(max_boxes));
    REQUIRE(got.size() == box_nodes.size());
    CHECK(got.size() > max_boxes / 2);
    int32_t largest = 0;
    for (const int32_t ni : box_nodes) largest = std::max(largest, nodes[ni].end - nodes[ni].begin);
    CHECK((max_boxes == 512 ? largest < 4096 : largest > 2 * 4096));
    std::vector<LetBox> want;
    for (const int32_t ni : box_nodes) {
      constexpr double inf = std::numeric_limits<double>::infinity();
      LetBox b{{inf, inf, inf}, {-inf, -inf, -inf}, 0.0f, 0.0f, 0};
      float a_nz = std::numeric_limits<float>::infinity();
      for (int32_t k = nodes[ni].begin; k < nodes[ni].end; ++k) {
        const Vec3d& x = particles[std::size_t(k)].pos;
        b.lo = {std::min(b.lo.x, x.x), std::min(b.lo.y, x.y), std::min(b.lo.z, x.z)};
        b.hi = {std::max(b.hi.x, x.x), std::max(b.hi.y, x.y), std::max(b.hi.z, x.z)};
        b.eps_max = std::max(b.eps_max, particles[std::size_t(k)].eps);
        const float a = float(norm(with_acc.acc_grav[order[std::size_t(k)]]) / G);
        if (a > 0.0f)
          a_nz = std::min(a_nz, a);
        else
          b.has_zero = 1;
      }
      b.acc_min = std::isfinite(a_nz) ? a_nz : 0.0f;
      want.push_back(b);
    }
    auto key = [](const LetBox& b) { return std::make_tuple(b.lo.x, b.lo.y, b.lo.z, b.hi.x); };
    auto by_key = [&](const LetBox& a, const LetBox& b) { return key(a) < key(b); };
    std::vector<LetBox> g = got;
    std::sort(g.begin(), g.end(), by_key);
    std::sort(want.begin(), want.end(), by_key);
    std::size_t box_diff = 0;
    for (std::size_t k = 0; k < g.size(); ++k) {
      const LetBox &a = g[k], &b = want[k];
      // |a_old| is the GPU's own norm there: within a float ulp of the host's.
      box_diff += key(a) != key(b) || a.hi.y != b.hi.y || a.hi.z != b.hi.z ||
                  a.eps_max != b.eps_max || a.has_zero != b.has_zero ||
                  std::fabs(a.acc_min - b.acc_min) > 2e-7f * b.acc_min;
    }
    CHECK(box_diff == 0);
  }

  // Another rank's boxes: a row of boxes beside the sphere and one through its centre.
  std::vector<LetBox> theirs;
  for (int k = 0; k < 12; ++k)
    theirs.push_back({{1.0 + 0.3 * k, -0.2, -0.2},
                      {1.2 + 0.3 * k, 0.2, 0.2},
                      0.02f,
                      0.05f / float(1 + k),
                      uint8_t(k % 4 == 0)});
  theirs.push_back({{-0.05, -0.05, -0.05}, {0.05, 0.05, 0.05}, 0.01f, 1.0f, 0});
  for (const bool relative : {true, false}) {
    INFO((relative ? "relative" : "geometric") << " criterion");
    const OpeningParams op = opening_params(p);
    std::vector<OctreeNode> a_nodes, b_nodes;
    std::vector<LetParticle> a_parts, b_parts;
    a_nodes.push_back(OctreeNode{});  // appended after what is there
    let.append_let(gpu.device_tree(), theirs, op, relative, a_nodes, a_parts);
    host_let(nodes, particles, theirs, op, relative, b_nodes, b_parts);
    std::printf("[let gpu] %s: %zu nodes, %zu particles (host %zu, %zu) of %zu nodes\n",
                relative ? "relative" : "geometric", a_nodes.size() - 1, a_parts.size(),
                b_nodes.size(), b_parts.size(), nodes.size());
    REQUIRE(a_nodes.size() == b_nodes.size() + 1);
    CHECK(a_parts.size() == b_parts.size());
    CHECK(a_parts.size() > 0);
    CHECK(b_nodes.size() < nodes.size());
    const std::vector<OctreeNode> a_let(a_nodes.begin() + 1, a_nodes.end());
    CHECK(differences(a_let, a_parts, 0, b_nodes, b_parts, 0) == 0);
    // Children follow their parent (what the walk's forest assumes).
    std::size_t order_bad = 0;
    for (std::size_t k = 0; k < a_let.size(); ++k)
      order_bad += a_let[k].n_child > 0 && a_let[k].child_begin <= int32_t(k);
    CHECK(order_bad == 0);

    // The same LET as messages GPU to GPU (let_kern.hpp): appended twice, each message the
    // nodes and particles of append_let; walked as two source trees, the forest of the host's
    // copies gives the same accelerations bit for bit.
    const LetCounts c1 = let.append_message(gpu.device_tree(), theirs, op, relative, true);
    const LetCounts c2 = let.append_message(gpu.device_tree(), theirs, op, relative, false);
    REQUIRE(c1.nodes == a_let.size());
    REQUIRE(c1.particles == a_parts.size());
    REQUIRE((c2.nodes == c1.nodes && c2.particles == c1.particles));
    const std::size_t bytes = let_message_bytes(c1);
    std::vector<unsigned char> msg(2 * bytes);
    REQUIRE(cudaMemcpy(msg.data(), let.messages(), msg.size(), cudaMemcpyDeviceToHost) ==
            cudaSuccess);
    for (int m = 0; m < 2; ++m) {
      std::vector<OctreeNode> m_nodes(a_let.size());
      std::vector<LetParticle> m_parts(a_parts.size());
      std::memcpy(m_nodes.data(), msg.data() + m * bytes, m_nodes.size() * sizeof(OctreeNode));
      std::memcpy(m_parts.data(), msg.data() + m * bytes + m_nodes.size() * sizeof(OctreeNode),
                  m_parts.size() * sizeof(LetParticle));
      CHECK(differences(m_nodes, m_parts, 0, a_let, a_parts, 0) == 0);
    }
    const int generations = gpu.device_tree().generations;
    SourceForest f;
    for (int m = 0; m < 2; ++m) {
      const int32_t nb = int32_t(f.nodes.size()), pb = int32_t(f.pos.size());
      f.roots.push_back(nb);
      for (OctreeNode n : a_let) {
        if (n.n_child > 0) n.child_begin += nb;
        n.begin += pb, n.end += pb;
        f.nodes.push_back(n);
      }
      for (const LetParticle& q : a_parts)
        f.pos.push_back(q.pos), f.mass.push_back(q.mass), f.eps.push_back(q.eps);
    }
    f.generations = generations;
    // Both walks from the same tree and |a_old| (the first walk overwrites acc_grav).
    test::upload_gravity(d, with_acc);
    gpu.build_in_cube(d.view(), p, relative, lo, edge);
    gpu.walk_with_sources(d.view(), p, G, f);
    ParticleStore via_host = s;
    test::download_gravity(d, via_host);
    test::upload_gravity(d, with_acc);
    gpu.build_in_cube(d.view(), p, relative, lo, edge);
    gpu.walk_with_device_sources(d.view(), p, G,
                                 {let.messages(), {0, bytes}, {c1, c2}, generations});
    ParticleStore via_device = s;
    test::download_gravity(d, via_device);
    std::size_t acc_diff = 0;
    for (std::size_t i = 0; i < s.size(); ++i)
      acc_diff += via_host.acc_grav[i].x != via_device.acc_grav[i].x ||
                  via_host.acc_grav[i].y != via_device.acc_grav[i].y ||
                  via_host.acc_grav[i].z != via_device.acc_grav[i].z ||
                  via_host.pot[i] != via_device.pot[i];
    CHECK(acc_diff == 0);
  }
}

#endif  // MPSPH_HAVE_CUDA
