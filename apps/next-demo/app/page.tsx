import { redirect } from 'next/navigation'

/** `/` opens the challenges list. */
export default function Home(): never {
  redirect('/challenges')
}
