# SPDX-License-Identifier: Apache-2.0
# SPDX-FileCopyrightText: 2026 The Shardscope Authors
# UI tests: Qt Test executables on the offscreen platform, and the explorer's --screenshot mode end to end.
find_package(Qt6 REQUIRED COMPONENTS Widgets)

shardscope_add_test(tst_ui_job_queue SOURCES tst_ui_job_queue.cpp LIBRARIES shardscope::ui_core LABELS ui)
shardscope_add_test(tst_ui_models SOURCES tst_ui_models.cpp LIBRARIES shardscope::ui_core LABELS ui)
shardscope_add_test(tst_ui_layout SOURCES tst_ui_layout.cpp LIBRARIES shardscope::ui_core LABELS ui)
shardscope_add_test(tst_ui_plan_editor SOURCES tst_ui_plan_editor.cpp LIBRARIES shardscope::ui_core LABELS ui)
shardscope_add_test(tst_ui_graph SOURCES tst_ui_graph.cpp LIBRARIES shardscope::ui_widgets Qt6::Widgets LABELS ui shared)
shardscope_add_test(tst_ui_graph_comm SOURCES tst_ui_graph_comm.cpp
                    LIBRARIES shardscope::ui_widgets Qt6::Widgets LABELS ui shared TIMEOUT 300)
shardscope_add_test(tst_ui_panels SOURCES tst_ui_panels.cpp
                    LIBRARIES shardscope::ui_widgets Qt6::Widgets LABELS ui shared)

# The Conflicts dock: its columns at the default width, options priced in the background, choices and their effect.
shardscope_add_test(tst_ui_conflicts SOURCES tst_ui_conflicts.cpp
                    LIBRARIES shardscope::ui_widgets Qt6::Widgets LABELS ui TIMEOUT 300)

shardscope_add_test(tst_ui_search SOURCES tst_ui_search.cpp
                    LIBRARIES shardscope::ui_widgets Qt6::Widgets LABELS ui TIMEOUT 300)
shardscope_add_test(tst_ui_plans SOURCES tst_ui_plans.cpp LIBRARIES shardscope::ui_widgets Qt6::Widgets LABELS ui)
shardscope_add_test(tst_ui_compare SOURCES tst_ui_compare.cpp LIBRARIES shardscope::ui_widgets Qt6::Widgets LABELS ui)
shardscope_add_test(tst_ui_timeline SOURCES tst_ui_timeline.cpp LIBRARIES shardscope::ui_widgets Qt6::Widgets LABELS ui)
shardscope_add_test(tst_ui_pictures SOURCES tst_ui_pictures.cpp LIBRARIES shardscope::ui_widgets Qt6::Widgets LABELS ui)
shardscope_add_test(tst_ui_pipeline SOURCES tst_ui_pipeline.cpp LIBRARIES shardscope::ui_widgets Qt6::Widgets LABELS ui)
# Settings that behave: open with what is shown, the wheel, the message log, name colours, the fixed-pitch view.
shardscope_add_test(tst_ui_settings SOURCES tst_ui_settings.cpp LIBRARIES shardscope::ui_widgets Qt6::Widgets LABELS ui)
# Again where fontconfig resolves "monospace" to a proportional face: the StableHLO view must still be fixed-pitch.
add_test(NAME tst_ui_settings_proportional_monospace COMMAND tst_ui_settings fixedPitchFontOnAnySetup)
set_tests_properties(tst_ui_settings_proportional_monospace PROPERTIES LABELS ui TIMEOUT 120
                     ENVIRONMENT "QT_QPA_PLATFORM=offscreen;FONTCONFIG_FILE=${CMAKE_CURRENT_SOURCE_DIR}/fonts/proportional_monospace.conf")

# Opens every model of ../shared in the window and pictures the largest (label `shared`: skips without it).
shardscope_add_test(tst_ui_shared_models SOURCES tst_ui_shared_models.cpp
                    LIBRARIES shardscope::ui_widgets Qt6::Widgets LABELS ui shared TIMEOUT 900)

# Also runs the `shardscope` executable (--screenshot, failures and their messages) through QProcess.
shardscope_add_test(tst_ui_mainwindow SOURCES tst_ui_mainwindow.cpp
                    LIBRARIES shardscope::ui_widgets Qt6::Widgets LABELS ui)
add_dependencies(tst_ui_mainwindow shardscope)

# The way the README and packaging take pictures of the explorer.
set(_ui_screenshot_dir ${CMAKE_CURRENT_BINARY_DIR}/ui_screenshot)
file(MAKE_DIRECTORY ${_ui_screenshot_dir})
add_test(NAME ui_screenshot_demo COMMAND shardscope --screenshot ${_ui_screenshot_dir}/demo.png)
set_tests_properties(ui_screenshot_demo PROPERTIES LABELS ui TIMEOUT 120 ENVIRONMENT "QT_QPA_PLATFORM=offscreen")

# Bad input in the explorer: failed opens, plans of another model, a mesh that cannot be applied keep the prior work.
shardscope_add_test(tst_ui_bad_input SOURCES tst_ui_bad_input.cpp
                    LIBRARIES shardscope::ui_widgets Qt6::Widgets LABELS ui TIMEOUT 300)

# The CLI and the explorer's ui/core adapters on the cases where their copies of the session stage had drifted.
shardscope_add_test(tst_front_doors SOURCES tst_front_doors.cpp
                    LIBRARIES shardscope::ui_core nlohmann_json::nlohmann_json LABELS ui)
add_dependencies(tst_front_doors shardscope-cli)

# A new user's walk through the window: every panel follows the model and the plan shown; previews; the help.
shardscope_add_test(tst_ui_walk SOURCES tst_ui_walk.cpp LIBRARIES shardscope::ui_widgets Qt6::Widgets LABELS ui)

# The ThreadSanitizer job's canary (a deliberate race; .ci/sanitizers thread expects its report): only in that build.
if(SHARDSCOPE_SANITIZE MATCHES "thread")
  add_executable(tsan_canary sanitizers/tsan_canary.cpp)
  target_link_libraries(tsan_canary PRIVATE shardscope::ui_core)
  shardscope_target_defaults(tsan_canary)
endif()
