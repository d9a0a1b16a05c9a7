// Public barrel for "@toolmark/inertia": the framework-neutral binding to Inertia's router.
export { type BindInertiaOptions, bindInertia, type InertiaBinding } from './binding.ts'
export {
  type ConnectEchoOptions,
  connectEcho,
  type InertiaEchoLike,
  type ToolmarkSharedProps,
} from './echo.ts'
export {
  NAVIGATION_CANCELLED,
  NAVIGATION_NO_PAGE,
  NAVIGATION_NOT_ALLOWED,
  type NavigationInput,
  type NavigationOutput,
  type NavigationToolOptions,
  navigationTool,
} from './navigation.ts'
export { initialPageFromDocument } from './page.ts'
export type {
  InertiaPageEventDetail,
  InertiaPageEventName,
  InertiaPageLike,
  InertiaRouterLike,
  InertiaVisitCallbacks,
} from './types.ts'
