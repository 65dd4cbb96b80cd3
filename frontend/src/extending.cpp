// The registry of overloads libraries add (extending.hpp).
#include <cuforge/frontend/extending.hpp>

#include <cuforge/runtime/error.hpp>

#include <map>
#include <mutex>

namespace cuforge::frontend {

namespace {

std::mutex& registry_lock() {
  static std::mutex m;
  return m;
}

std::map<std::string, std::vector<std::shared_ptr<overload_resolver>>>& registry() {
  static auto* r = new std::map<std::string, std::vector<std::shared_ptr<overload_resolver>>>;  // never destroyed:
  return *r;  // resolvers may hold Python objects, which must not be released after the interpreter
}

}  // namespace

std::vector<bound_argument> overload_resolver::bind(std::size_t positional,
                                                     const std::vector<std::string>& keywords) {
  if (!keywords.empty()) throw logic_error("got an unexpected keyword argument '" + keywords.front() + "'");
  std::vector<bound_argument> r(positional);
  for (std::size_t i = 0; i < positional; ++i) r[i].index = static_cast<int>(i);
  return r;
}

void register_overload(const std::string& key, std::shared_ptr<overload_resolver> r) {
  std::lock_guard lock(registry_lock());
  registry()[key].push_back(std::move(r));
}

std::vector<std::shared_ptr<overload_resolver>> overloads_of(const std::string& key) {
  std::lock_guard lock(registry_lock());
  auto it = registry().find(key);
  return it == registry().end() ? std::vector<std::shared_ptr<overload_resolver>>{} : it->second;
}

}  // namespace cuforge::frontend
