// The generated tables of docs/file_format.md: every snapshot and checkpoint dataset, from the
// field table. tests/io/file_format_doc_test.cpp keeps the document equal to them.
#pragma once

#include <string>

namespace mpsph {

// | dataset | types | file type | shape | unit | written | description |
std::string snapshot_datasets_markdown();

// | dataset | file type | shape | description |  (the /Particles datasets: every Kept field)
std::string checkpoint_datasets_markdown();

}  // namespace mpsph
