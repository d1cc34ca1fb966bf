// SPDX-License-Identifier: Apache-2.0
// SPDX-FileCopyrightText: 2026 The Shardscope Authors
#include "test_paths.h"

namespace shardscope::testing {

QString sharedDir() {
    return QStringLiteral(SHARDSCOPE_SHARED_DIR);
}
QString sourceDir() {
    return QStringLiteral(SHARDSCOPE_SOURCE_DIR);
}
QString binaryDir() {
    return QStringLiteral(SHARDSCOPE_BINARY_DIR);
}
QString cliPath() {
    return QStringLiteral(SHARDSCOPE_CLI);
}
QString guiPath() {
    return QStringLiteral(SHARDSCOPE_GUI);
}
QString workspaceWriterPath() {
    return QStringLiteral(SHARDSCOPE_WORKSPACE_WRITER);
}
QString cpackPath() {
    return QStringLiteral(SHARDSCOPE_CPACK);
}

}  // namespace shardscope::testing
