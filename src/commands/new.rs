use crate::cli::NewArgs;
use crate::ui::Ui;

pub fn run(_ui: &Ui, _args: NewArgs) -> anyhow::Result<()> {
    anyhow::bail!("not yet")
}
