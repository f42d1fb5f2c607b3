// The one declaration GL101 needs, instead of LibTorch's headers.
namespace c10 {
struct GradMode {
  static void set_enabled(bool enabled);
};
} // namespace c10

void load() {
  c10::GradMode::set_enabled(false);
}
