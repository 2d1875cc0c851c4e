// The locally essential trees of a device-resident MPI rank (run/gpu_ranks.hpp), selected on its
// GPU from the tree GpuGravity built there: the target boxes the rank gathers to the others, and
// for the boxes of another rank the part of its tree that rank needs - the same nodes, particles
// and layout as the host selection of parallel/distributed_gravity.cpp (the same
// let_node_accepted, gravity/let_kern.hpp), so that only the boxes and the LETs cross the bus.
//
// No CUDA in this header; defined only in CUDA builds (let_gpu.cu).
#pragma once

#include <cstddef>
#include <memory>
#include <vector>

#include "gravity/gravity_gpu.hpp"
#include "gravity/let_kern.hpp"

namespace mpsph {

class DeviceLet {
 public:
  DeviceLet();
  ~DeviceLet();
  DeviceLet(const DeviceLet&) = delete;
  DeviceLet& operator=(const DeviceLet&) = delete;

  // The target boxes of tree t: the box nodes found from the root by splitting the node of largest
  // extent while there are at most max_boxes (only nodes of more than group_size particles), each
  // with the bounding box, largest softening and smallest non-zero float(|a_old| / G) of its
  // particles (distributed_gravity.cpp's box_nodes and target_boxes; every particle a target).
  std::vector<LetBox> target_boxes(const GpuGravity::DeviceTree& t, int group_size, double G,
                                   std::size_t max_boxes);
  // The LET of t for `boxes` (another rank's), appended to `nodes` and `parts` as
  // distributed_gravity.cpp's build_let appends it: every node tested for some box (the root and
  // the children of opened nodes), children contiguous and after their parent, child_begin and
  // begin/end relative to this LET's first node and particle; the particles of opened leaves.
  void append_let(const GpuGravity::DeviceTree& t, const std::vector<LetBox>& boxes,
                  const OpeningParams& op, bool relative, std::vector<OctreeNode>& nodes,
                  std::vector<LetParticle>& parts);
  // The same LET as a message (let_kern.hpp's LetCounts) appended to this object's device
  // buffer of messages, emptied first when `first`: what travels GPU to GPU. messages() is valid
  // until the next append.
  LetCounts append_message(const GpuGravity::DeviceTree& t, const std::vector<LetBox>& boxes,
                           const OpeningParams& op, bool relative, bool first);
  const unsigned char* messages() const;
  std::size_t device_bytes() const;  // the selection's buffers and the messages

  struct Scratch;

 private:
  std::unique_ptr<Scratch> s_;
};

}  // namespace mpsph
