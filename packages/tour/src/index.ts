// "@toolmark/tour": guided tours over the registry's tools (caller `tour`, inline confirmation).
export { type DomOverlayOptions, domOverlay } from './overlay.ts'
export {
  createTourRunner,
  type Tour,
  type TourOutcome,
  type TourOverlay,
  type TourRunner,
  type TourRunnerOptions,
  type TourStep,
  type TourView,
} from './runner.ts'
