//! What the user sees: messages, warnings, progress and prompts. Colour and spinners appear only
//! on a terminal, colour never when `NO_COLOR` is set, and `--quiet` leaves only errors.

use std::io::IsTerminal;
use std::time::Duration;

use console::style;
use indicatif::{ProgressBar, ProgressStyle};

#[derive(Debug, Clone, Copy)]
pub struct Ui {
    quiet: bool,
    interactive: bool,
    stderr_terminal: bool,
}

impl Ui {
    pub fn new(quiet: bool, assume_yes: bool) -> Self {
        let stdin_terminal = std::io::stdin().is_terminal();
        let stderr_terminal = std::io::stderr().is_terminal();
        if std::env::var_os("NO_COLOR").is_some_and(|v| !v.is_empty()) {
            console::set_colors_enabled(false);
            console::set_colors_enabled_stderr(false);
        }
        Ui {
            quiet,
            interactive: !assume_yes && stdin_terminal && stderr_terminal,
            stderr_terminal,
        }
    }

    /// True when the user can be asked questions.
    pub fn is_interactive(&self) -> bool {
        self.interactive
    }

    /// A line of the command's normal output (stdout).
    pub fn info(&self, message: impl AsRef<str>) {
        if !self.quiet {
            println!("{}", message.as_ref());
        }
    }

    /// The command's product (for example rendered manifests): printed even with `--quiet`,
    /// since the user asked for exactly this output.
    pub fn data(&self, text: impl AsRef<str>) {
        print!("{}", text.as_ref());
    }

    /// A heading-like line: bold on a terminal.
    pub fn headline(&self, message: impl AsRef<str>) {
        if !self.quiet {
            println!("{}", style(message.as_ref()).bold());
        }
    }

    pub fn warn(&self, message: impl AsRef<str>) {
        if !self.quiet {
            eprintln!("{} {}", style("warning:").yellow().bold(), message.as_ref());
        }
    }

    /// A spinner for a step that takes noticeable time; hidden when not on a terminal or quiet.
    pub fn spinner(&self, message: impl Into<String>) -> ProgressBar {
        if self.quiet || !self.stderr_terminal {
            return ProgressBar::hidden();
        }
        let bar = ProgressBar::new_spinner();
        bar.set_style(
            ProgressStyle::with_template("{spinner} {msg} ({elapsed})")
                .unwrap_or_else(|_| ProgressStyle::default_spinner()),
        );
        bar.set_message(message.into());
        bar.enable_steady_tick(Duration::from_millis(100));
        bar
    }

    /// A byte-counting bar for downloads; hidden when not on a terminal or quiet. Feed it with
    /// [`Ui::download_progress`].
    pub fn download_bar(&self, message: impl Into<String>) -> ProgressBar {
        if self.quiet || !self.stderr_terminal {
            return ProgressBar::hidden();
        }
        let bar = ProgressBar::new_spinner();
        bar.set_style(
            ProgressStyle::with_template("{spinner} {msg} {bytes}")
                .unwrap_or_else(|_| ProgressStyle::default_spinner()),
        );
        bar.set_message(message.into());
        bar.enable_steady_tick(Duration::from_millis(100));
        bar
    }

    /// Moves a [`Ui::download_bar`] to `done` bytes of `total` (each download starts at 0).
    pub fn download_progress(bar: &ProgressBar, done: u64, total: Option<u64>) {
        match total {
            Some(total) if bar.length() != Some(total) => {
                bar.set_length(total);
                bar.set_style(
                    ProgressStyle::with_template(
                        "{spinner} {msg} [{bar:30}] {bytes}/{total_bytes} ({bytes_per_sec})",
                    )
                    .unwrap_or_else(|_| ProgressStyle::default_bar())
                    .progress_chars("=> "),
                );
            }
            _ => {}
        }
        bar.set_position(done);
    }

    /// A line of another program's output passed through to stderr (not with `--quiet`).
    pub fn passthrough(&self, line: &str) {
        if !self.quiet {
            eprintln!("{line}");
        }
    }

    /// Asks for a value on a terminal, showing the default; elsewhere returns the default.
    /// `None` means there is no default and nobody to ask.
    pub fn ask(
        &self,
        prompt: &str,
        default: Option<String>,
        validate: impl Fn(&str) -> Result<(), String> + 'static,
    ) -> anyhow::Result<Option<String>> {
        if !self.interactive {
            return Ok(default);
        }
        let theme = dialoguer::theme::ColorfulTheme::default();
        let mut input = dialoguer::Input::<String>::with_theme(&theme).with_prompt(prompt);
        if let Some(default) = default {
            input = input.default(default);
        }
        let answer = input
            .validate_with(move |value: &String| validate(value))
            .interact_text()?;
        Ok(Some(answer))
    }

    /// Asks a yes/no question on a terminal; elsewhere the answer is no.
    pub fn confirm(&self, prompt: &str) -> anyhow::Result<bool> {
        if !self.interactive {
            return Ok(false);
        }
        let theme = dialoguer::theme::ColorfulTheme::default();
        Ok(dialoguer::Confirm::with_theme(&theme)
            .with_prompt(prompt)
            .default(false)
            .interact()?)
    }
}

/// Formats an error and its causes the way users read them: one line per cause.
pub fn render_error(error: &anyhow::Error) -> String {
    let mut text = format!("{} {error}", style("error:").red().bold());
    for cause in error.chain().skip(1) {
        text.push_str(&format!("\n  caused by: {cause}"));
    }
    text
}
