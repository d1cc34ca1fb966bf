// SPDX-License-Identifier: Apache-2.0
// SPDX-FileCopyrightText: 2026 The Shardscope Authors
// Where the tests find the project's files, its programs and ../shared. One translation unit (test_paths.cpp)
// holds these paths, so that every other test compiles to the same object in any clone of the tree and ccache
// serves them across clones (CI's fresh clone).
#pragma once

#include <QString>

namespace shardscope::testing {

QString sharedDir();  // ../shared beside the source tree (absent in a user's clone: `shared` tests skip)
QString sourceDir();  // the source tree
QString binaryDir();  // the build tree
QString cliPath();    // shardscope-cli of this build
QString guiPath();    // shardscope of this build ("" without the GUI)
QString workspaceWriterPath();  // tests/workspace_writer of this build
QString cpackPath();            // the cpack of the CMake that configured this build

}  // namespace shardscope::testing
