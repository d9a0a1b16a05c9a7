import type { NavigationToolOptions } from '@toolmark/inertia'

/**
 * The navigation tool's options: the demo's pages by name, and a description that says what each
 * page offers, so an agent (the offline one included) can route a request to the page that serves
 * it ("open the settings page" is `{ page: 'settings' }`, "go to the new challenge page" is
 * `{ page: 'new-challenge' }`).
 */
export const NAVIGATION = {
  pages: { challenges: '/challenges', 'new-challenge': '/challenges/new', settings: '/settings' },
  description:
    'Open another page of this site: "challenges" (the challenges list: list, create and delete challenges), "new-challenge" (the New challenge form: create a challenge), "settings" (the color theme: set light or dark). Pass page, one of these names; or url, another path of this site. The page tools change to the new page’s tools.',
} satisfies NavigationToolOptions<'challenges' | 'new-challenge' | 'settings'>
