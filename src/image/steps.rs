//! Recognising "which step is the build at" in a builder's output, so a spinner can show it
//! while the full log goes to a file.
//!
//! - docker's classic builder: `Step 3/7 : COPY watches.yaml ${HOME}/watches.yaml`
//! - BuildKit (`--progress=plain`): `#7 [builder 3/6] RUN cargo build --release`
//! - podman and buildah: `STEP 3/6: COPY ...`, in multi-stage builds `[2/2] STEP 1/4: FROM ...`

use std::fmt;

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Step {
    pub current: u32,
    pub total: u32,
    /// The stage name (BuildKit) or `stage/stages` (buildah) in multi-stage builds.
    pub stage: Option<String>,
    pub instruction: String,
}

impl fmt::Display for Step {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "step {}/{}", self.current, self.total)?;
        if let Some(stage) = &self.stage {
            write!(f, " of {stage}")?;
        }
        write!(f, ": {}", self.instruction)
    }
}

/// The step a line of build output announces, if it announces one.
pub fn parse_step(line: &str) -> Option<Step> {
    let line = line.trim();
    if let Some(rest) = line.strip_prefix("Step ") {
        let (fraction, instruction) = rest.split_once(" : ")?;
        let (current, total) = fraction_of(fraction)?;
        return Some(step(current, total, None, instruction));
    }
    if let Some(rest) = line.strip_prefix('#') {
        // `#N [stage x/y] INSTRUCTION`; `#N [internal] load ...` lines have no fraction.
        let (number, rest) = rest.split_once(' ')?;
        number.parse::<u32>().ok()?;
        let inside = rest.strip_prefix('[')?;
        let (bracket, instruction) = inside.split_once(']')?;
        let (stage, fraction) = match bracket.rsplit_once(' ') {
            Some((stage, fraction)) => (Some(stage.to_string()), fraction),
            None => (None, bracket),
        };
        let (current, total) = fraction_of(fraction)?;
        return Some(step(current, total, stage, instruction));
    }
    let (stage, rest) = match line.strip_prefix('[') {
        Some(inside) => {
            let (stage, rest) = inside.split_once("] ")?;
            fraction_of(stage)?;
            (Some(format!("stage {stage}")), rest)
        }
        None => (None, line),
    };
    let rest = rest.strip_prefix("STEP ")?;
    let (fraction, instruction) = rest.split_once(':')?;
    let (current, total) = fraction_of(fraction)?;
    Some(step(current, total, stage, instruction))
}

fn step(current: u32, total: u32, stage: Option<String>, instruction: &str) -> Step {
    Step {
        current,
        total,
        stage,
        instruction: instruction.trim().to_string(),
    }
}

fn fraction_of(text: &str) -> Option<(u32, u32)> {
    let (current, total) = text.trim().split_once('/')?;
    Some((current.parse().ok()?, total.parse().ok()?))
}

/// Shortens an instruction for a one-line spinner, on a character boundary.
pub fn abbreviate(text: &str, max_chars: usize) -> String {
    if text.chars().count() <= max_chars {
        return text.to_string();
    }
    let kept: String = text.chars().take(max_chars.saturating_sub(1)).collect();
    format!("{kept}…")
}

#[cfg(test)]
mod tests {
    use super::*;

    fn s(current: u32, total: u32, stage: Option<&str>, instruction: &str) -> Option<Step> {
        Some(Step {
            current,
            total,
            stage: stage.map(str::to_string),
            instruction: instruction.to_string(),
        })
    }

    #[test]
    fn reads_docker_classic_steps() {
        assert_eq!(
            parse_step("Step 4/7 : COPY watches.yaml ${HOME}/watches.yaml"),
            s(4, 7, None, "COPY watches.yaml ${HOME}/watches.yaml")
        );
        assert_eq!(parse_step(" ---> Running in 631a86e9ab6b"), None);
        assert_eq!(parse_step("Step x/7 : RUN"), None);
    }

    #[test]
    fn reads_buildkit_steps() {
        assert_eq!(
            parse_step("#8 [builder 3/6] RUN cargo build --release"),
            s(3, 6, Some("builder"), "RUN cargo build --release")
        );
        assert_eq!(parse_step("#5 [2/4] COPY . ."), s(2, 4, None, "COPY . ."));
        assert_eq!(parse_step("#1 [internal] load build definition"), None);
        assert_eq!(parse_step("#8 0.412 Compiling serde v1"), None);
    }

    #[test]
    fn reads_podman_and_buildah_steps() {
        assert_eq!(
            parse_step("STEP 3/6: COPY watches.yaml ${HOME}/watches.yaml"),
            s(3, 6, None, "COPY watches.yaml ${HOME}/watches.yaml")
        );
        assert_eq!(
            parse_step("[2/2] STEP 1/4: FROM ${RUNTIME_IMAGE}"),
            s(1, 4, Some("stage 2/2"), "FROM ${RUNTIME_IMAGE}")
        );
        assert_eq!(parse_step("STEPS are fun: 1/2"), None);
        assert_eq!(parse_step("[warning] STEP 1/2: x"), None);
    }

    #[test]
    fn displays_for_a_spinner() {
        let step = parse_step("#8 [builder 3/6] RUN cargo build").unwrap();
        assert_eq!(step.to_string(), "step 3/6 of builder: RUN cargo build");
        assert_eq!(abbreviate("abcdef", 4), "abc…");
        assert_eq!(abbreviate("abc", 4), "abc");
        assert_eq!(abbreviate("ééééé", 3), "éé…");
    }
}
