// The intrinsic registry (intrinsics.hpp, intrinsic_registry.hpp): its rows
// are consistent (unique names, modules above every dotted name, the hooks
// each kind needs, a lowering for every target) and its public listing
// matches its rows. test_typer_cuda.cpp and test_codegen_targets.cpp check
// that the typer and codegen reach kernel-side names through it.
#include "intrinsic_registry.hpp"

#include <cuforge/frontend/intrinsics.hpp>

#include <gtest/gtest.h>

#include <set>
#include <string>

using namespace cuforge::frontend;

TEST(Intrinsics, RowsAreUniqueAndEveryDottedPrefixIsAModule) {
  std::set<std::string> names;
  for (const detail::intrinsic* e : detail::registry()) {
    const std::string name(e->info.name);
    EXPECT_TRUE(names.insert(name).second) << name;
    for (auto dot = name.find('.'); dot != std::string::npos; dot = name.find('.', dot + 1)) {
      const detail::intrinsic* parent = detail::find_entry(name.substr(0, dot));
      ASSERT_NE(parent, nullptr) << name;
      EXPECT_EQ(parent->info.kind, intrinsic_kind::module) << name;
    }
  }
  EXPECT_GT(names.size(), 200u);
}

TEST(Intrinsics, EachKindHasItsHooksAndEveryTargetALowering) {
  for (const detail::intrinsic* e : detail::registry()) {
    SCOPED_TRACE(std::string(e->info.name));
    switch (e->info.kind) {
      case intrinsic_kind::module:
        EXPECT_EQ(e->call, nullptr);
        EXPECT_EQ(e->read, nullptr);
        EXPECT_EQ(e->lower, nullptr);
        break;
      case intrinsic_kind::function:
        EXPECT_NE(e->call, nullptr);
        EXPECT_EQ(e->read, nullptr);
        break;
      case intrinsic_kind::value:
        EXPECT_NE(e->read, nullptr);
        EXPECT_EQ(e->call, nullptr);
        break;
    }
    // One lowering for all targets, or one per target, never part of the targets.
    const bool any = e->lower_on[0] != nullptr || e->lower_on[1] != nullptr;
    if (any) {
      EXPECT_EQ(e->lower, nullptr) << "both a common and per-target lowerings";
      for (std::size_t t = 0; t < detail::target_count; ++t) EXPECT_NE(e->lower_on[t], nullptr) << "target " << t;
    }
    // Whatever needs the cpu backend's fibers is an intrinsic op (the typer marks the kernel there).
    if (e->info.cpu != cpu_needs::nothing) {
      EXPECT_TRUE(e->lower != nullptr || any);
    }
  }
}

TEST(Intrinsics, ThePublicListingIsTheRowsInIndexOrder) {
  const auto& infos = intrinsics();
  ASSERT_EQ(infos.size(), detail::registry().size());
  for (std::size_t i = 0; i < infos.size(); ++i) {
    EXPECT_EQ(infos[i].name, detail::registry()[i]->info.name);
    EXPECT_EQ(intrinsic_index(infos[i].name), static_cast<std::int64_t>(i));
    EXPECT_EQ(intrinsic_at(static_cast<std::int64_t>(i))->name, infos[i].name);
    EXPECT_EQ(find_intrinsic(infos[i].name)->doc, infos[i].doc);
  }
  EXPECT_EQ(intrinsic_index("cuda.no_such_thing"), -1);
  EXPECT_EQ(find_intrinsic("cuda.no_such_thing"), nullptr);
  EXPECT_EQ(intrinsic_at(-1), nullptr);
  EXPECT_EQ(intrinsic_at(static_cast<std::int64_t>(infos.size())), nullptr);
  EXPECT_EQ(to_string(cpu_needs::block_sync), "block_sync");
  EXPECT_EQ(to_string(intrinsic_kind::value), "value");
}
