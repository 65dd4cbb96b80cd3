// Placeholder until the typer lands: every entry point fails clearly.
#include <cuforge/frontend/diagnostics.hpp>
#include <cuforge/frontend/typer.hpp>

namespace cuforge::frontend {

typed_module infer(type_context&, std::shared_ptr<const function> entry, const signature&, bool, const typer_options&) {
  throw typing_error("the typer is not built yet", *entry, location{entry->first_line, 0});
}

}  // namespace cuforge::frontend
